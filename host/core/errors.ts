// The three kinds of errors (STYLE.md §13): user errors from one catalog of code, status and
// message; bugs (an Error whose message starts with "BUG:", answered as a plain 500); and
// corrupt data (CorruptionError, naming the file, the offset and the check that failed).
// Runtime-agnostic: the engine, storage and ingest throw these; host/server maps them to HTTP.

/**
 * Every user-facing error: its six-digit code (CnosDB's scheme: 2-digit module, 4-digit number;
 * Sundial's own codes in the same scheme) and HTTP status. Codes are append-only (corrections:
 * sqlExecute, databaseExists, tableExists, below); docs/errors.md lists them all (a test checks it).
 */
export const ERRORS = {
  // 00 general
  internal: { code: '000001', status: 500, title: 'internal error' },
  unavailable: { code: '000003', status: 503, title: 'service unavailable' },
  // 01 query
  sqlPlan: { code: '010001', status: 422, title: 'planning error' },
  sqlSemantic: { code: '010003', status: 422, title: 'semantic error (CnosDB\'s "Semantic error: ...")' },
  privilege: { code: '010004', status: 422, title: 'insufficient privileges' },
  notImplemented: { code: '010005', status: 422, title: 'not implemented' },
  sqlParse: { code: '010009', status: 422, title: 'SQL parse error' },
  queryTimeout: { code: '010010', status: 500, title: 'query timeout' },
  queryMemory: { code: '010011', status: 422, title: 'query memory limit exceeded' },
  // Execution errors take CnosDB's codes of the error that wraps them: its QueryError::Datafusion
  // (010001, "Datafusion: ...") and QueryError::Arrow (010002, "Arrow: ..."). Sundial answered
  // 010012 until 2026-11-26: CnosDB's "Concurrent query request limit exceeded", whose meaning a
  // client may act on (retry), so the code was wrong however stable.
  sqlExecute: { code: '010001', status: 422, title: 'query execution error (DataFusion)' },
  sqlArrow: {
    code: '010002',
    status: 422,
    title: 'query execution error (Arrow: a value that does not cast or parse)',
  },
  multiStatement: { code: '010013', status: 422, title: 'several statements' },
  // CnosDB's QueryError::Cancel: a PostgreSQL client's CancelRequest stopped the statement.
  queryCanceled: { code: '010014', status: 500, title: 'query canceled by the client' },
  // CnosDB's own codes for what may not be dropped, created or limited (its QueryError enum).
  invalidParam: { code: '010024', status: 422, title: 'invalid parameter' },
  forbidDropTenant: { code: '010064', status: 422, title: 'the system tenant cannot be dropped' },
  forbidDropDatabase: { code: '010065', status: 422, title: 'the database public cannot be dropped' },
  forbidDropUser: { code: '010074', status: 422, title: 'the user root cannot be dropped' },
  forbidLimitTenant: { code: '010075', status: 422, title: 'the system tenant cannot be given a _limiter' },
  forbidDropSystemRole: { code: '010076', status: 422, title: 'a system role (owner, member) cannot be dropped' },
  forbidCreateSystemRole: { code: '010077', status: 422, title: 'a role cannot take the name of a system role' },
  systemRoleModification: {
    code: '010043',
    status: 422,
    title: 'a system role (owner, member) takes no GRANT or REVOKE',
  },
  // CnosDB's numbered semantic errors (QueryError 27-46): each its own code, its text "Semantic
  // error: ..." as its template writes it. Other semantic checks keep 010003 (QueryError::Semantic).
  sameColumnName: { code: '010027', status: 422, title: 'two columns of CREATE TABLE share a name' },
  columnNotExists: { code: '010029', status: 422, title: 'ALTER TABLE names a column the table does not have' },
  dropTag: { code: '010030', status: 422, title: 'a tag column cannot be dropped' },
  atLeastOneField: { code: '010032', status: 422, title: 'the last field column cannot be dropped' },
  atLeastOneTag: { code: '010033', status: 422, title: 'the time column cannot be dropped' },
  tagNoCompression: { code: '010034', status: 422, title: 'a tag column takes no codec' },
  timeColumnAlter: { code: '010035', status: 422, title: 'the time column takes no codec change' },
  columnDataType: { code: '010041', status: 422, title: 'a column type CREATE or ALTER TABLE does not know' },
  encodingType: { code: '010042', status: 422, title: 'a codec the column type does not take' },
  insertMissingColumn: { code: '010044', status: 422, title: 'INSERT names a column the table does not have' },
  insertMismatchColumns: { code: '010045', status: 422, title: 'INSERT gives more or fewer values than columns' },
  showSeriesField: { code: '010046', status: 422, title: 'SHOW SERIES / TAG VALUES filtering on a field' },
  // CnosDB's QueryError::ObjectStore ("object store error: {}"): a COPY or external-table location
  // that is refused (outside storage.external_dir, `..`, a symbolic link out of it), missing or
  // unreadable, or an S3 store's failure (s3://: NoSuchBucket, refused credentials, no answer).
  externalLocation: {
    code: '010047',
    status: 422,
    title:
      'COPY or external table location refused (outside storage.external_dir), missing or unreadable, or an object store failed',
  },
  invalidGeometry: { code: '010073', status: 422, title: 'value of a GEOMETRY column is not WKT of its sub type' },
  // CREATE STREAM TABLE's checks (CnosDB's UnsupportedStreamType, EventTimeColumnNotSpecified,
  // MissingTableOptions, InvalidTableOption).
  streamType: { code: '010059', status: 422, title: 'a stream table engine other than tskv' },
  eventTimeColumn: { code: '010061', status: 422, title: 'a stream table without event_time_column' },
  missingTableOption: { code: '010066', status: 422, title: 'a stream table without its db or table option' },
  invalidTableOption: { code: '010067', status: 422, title: 'a stream table option naming what does not exist' },
  auth: { code: '010016', status: 401, title: 'authentication failed' },
  // 02 storage
  schemaConflict: { code: '020010', status: 422, title: 'schema conflict' },
  pointExpired: { code: '020011', status: 422, title: 'point older than the retention period' },
  timestampOverflow: { code: '020012', status: 422, title: 'timestamp out of range' },
  corruptData: { code: '020013', status: 500, title: 'corrupt data' },
  // CnosDB's TskvError::FileSystemError ("file system error: {}"). 507 Insufficient Storage rather
  // than 503, which CONTRACT.md keeps for starting up and shutting down; Retry-After as with 429.
  noSpace: { code: '020058', status: 507, title: "no space left on the data directory's file system" },
  // 03 meta
  memberExists: { code: '030001', status: 422, title: 'member already exists' },
  memberNotFound: { code: '030002', status: 422, title: 'member not found' },
  roleExists: { code: '030005', status: 422, title: 'role already exists' },
  roleNotFound: { code: '030006', status: 422, title: 'role not found' },
  userExists: { code: '030007', status: 422, title: 'user already exists' },
  userNotFound: { code: '030008', status: 422, title: 'user not found' },
  tenantExists: { code: '030009', status: 422, title: 'tenant already exists' },
  tenantNotFound: { code: '030010', status: 422, title: 'tenant not found' },
  // Corrected 2026-11-29 to CnosDB's MetaError numbers: DatabaseAlreadyExists is 030018 (was
  // 030016, CommonError), TableAlreadyExists 030020 (was 030018).
  databaseExists: { code: '030018', status: 422, title: 'database already exists' },
  databaseNotFound: { code: '030017', status: 422, title: 'database not found' },
  tableExists: { code: '030020', status: 422, title: 'table already exists' },
  tableNotFound: { code: '030019', status: 422, title: 'table not found' },
  limitReached: { code: '030024', status: 429, title: 'limit reached' },
  privilegeNotGranted: { code: '030056', status: 422, title: 'privilege cannot be revoked (not granted)' },
  objectLimit: {
    code: '030057',
    status: 422,
    title: "a tenant's object limit reached (databases, members, shards, replicas, TTL)",
  },
  // 04 http
  badParameter: { code: '040001', status: 400, title: 'bad query parameter' },
  lineProtocol: { code: '040004', status: 400, title: 'line protocol parse error' },
  badHeader: { code: '040005', status: 400, title: 'bad header' },
  // CnosDB's HttpError::FetchResult: a result value its writers cannot write (a time beyond chrono's years).
  fetchResult: { code: '040007', status: 422, title: 'a result value that cannot be written' },
  openTsdbText: { code: '040010', status: 400, title: 'OpenTSDB text parse error' },
  openTsdbJson: { code: '040011', status: 400, title: 'OpenTSDB JSON parse error' },
  bodyDecode: { code: '040013', status: 400, title: 'request body decode error' },
  bodyTooLarge: { code: '040014', status: 413, title: 'request body too large' },
  logParse: { code: '040016', status: 400, title: 'log parse error' },
  protobuf: { code: '040017', status: 400, title: 'protobuf body decode error' },
  // Sundial's own (CnosDB's 04 codes end at 040019): a malformed or unexpected message on the
  // PostgreSQL port (SQLSTATE 08P01).
  pgProtocol: { code: '040025', status: 400, title: 'PostgreSQL wire protocol violation' },
} as const satisfies Record<string, { code: string; status: number; title: string }>;

export type ErrorKind = keyof typeof ERRORS;

/** An error caused by the request, reported to the client with its catalog code and status. */
export class UserError extends Error {
  override readonly name = 'UserError';
  readonly kind: ErrorKind;
  /** Seconds for Retry-After (429 and 503). */
  readonly retryAfterS: number | undefined;
  /** Which limit a 429 hit, as /metrics counts them (`memtable`, `queries`, ...: docs/monitoring.md). */
  readonly reason: string | undefined;

  constructor(kind: ErrorKind, message: string, options?: { cause?: unknown; retryAfterS?: number; reason?: string }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.kind = kind;
    this.retryAfterS = options?.retryAfterS;
    this.reason = options?.reason;
  }

  get code(): string {
    return ERRORS[this.kind].code;
  }

  get status(): number {
    return ERRORS[this.kind].status;
  }
}

/** Stored or logged data failed a check (Prometheus wlog.CorruptionErr). */
export class CorruptionError extends Error {
  override readonly name = 'CorruptionError';

  constructor(
    readonly source: string,
    readonly offset: number,
    readonly check: string,
    options?: { cause?: unknown },
  ) {
    super(
      `corrupt ${source} at offset ${offset}: ${check}`,
      options?.cause === undefined ? undefined : { cause: options.cause },
    );
  }
}

/** Marks a broken invariant: the message starts with "BUG:" and the client gets a plain 500. */
export function bug(message: string): Error {
  return new Error(`BUG: ${message}`);
}

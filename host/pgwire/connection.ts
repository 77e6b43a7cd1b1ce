// One PostgreSQL client connection: startup and authentication, then the simple and extended
// query protocols (protocol-flow.html). Messages are handled one at a time in arrival order;
// replies collect in one buffer that is written at each flush point (ReadyForQuery, Flush, and
// every 256 KiB of rows), and a result is pulled from the engine only as fast as the socket
// drains, so a 100,000-row answer streams in constant memory. An error in the extended protocol
// skips every message up to the next Sync, as PostgreSQL does. A protocol violation is answered
// with a FATAL ErrorResponse and the connection closes.

import type { Socket } from 'node:net';
import { UserError } from '../core/errors.js';
import { databaseNotFound } from '../core/meta-errors.js';
import { type Field, type RecordBatch, vectorFrom } from '../engine/types/index.js';
import {
  privilegeOn,
  requireMembership,
  requirePasswordChanged,
  SCRAM_MECHANISM,
  type TenantDef,
  type UserDef,
} from '../meta/index.js';
import { requireOnlyPasswordChange, type RunningStatement, startStatement, trackResult } from '../server/index.js';
import type { AuthPlan } from './auth.js';
import { catalogQuery } from './catalog-queries.js';
import { BodyReader, MessageReader, protocolError, typeName, type Message } from './framing.js';
import type { PgContext } from './context.js';
import { MessageWriter } from './messages.js';
import { parameterCount, parameterLiteral, substitute } from './parameters.js';
import { asUserError, errorFields } from './pg-errors.js';
import { describeFields, OID, resultFormats, RowEncoder } from './pg-types.js';
import {
  displayName,
  initialSettings,
  REPORTED,
  sessionCommand,
  type LocalResult,
  type SessionState,
} from './session-commands.js';
import { leadingWords, splitStatements, tokenizePg, type PgToken } from './sql-text.js';
import { parseStartup, targetOf, type Target } from './startup.js';

/** Replies are written once this many bytes are buffered (and at every flush point). */
const FLUSH_BYTES = 256 * 1024;
/** Unprocessed input past which the socket is paused until the backlog is handled. */
const INPUT_HIGH_WATER = 1 << 20;

/** Statements that change something: run at Execute only, never at Describe. */
const MUTATING = new Set([
  'insert',
  'update',
  'delete',
  'create',
  'drop',
  'alter',
  'grant',
  'revoke',
  'compact',
  'recover',
  'kill',
  'copy',
  'truncate',
  'move',
  'checksum',
]);

interface PreparedStatement {
  sql: string;
  tokens: PgToken[];
  /** A type oid per parameter, 0 when the client left it to the server. */
  paramTypes: number[];
}

/** A statement started in the engine whose rows are being sent. */
interface EngineRun {
  fields: Field[] | undefined;
  it: AsyncIterator<RecordBatch> | undefined;
  statement: RunningStatement;
  pending: RecordBatch | undefined;
  offset: number;
  rows: number;
  /** Bytes written (counter value) when it started, for the usage counters. */
  bytesAtStart: number;
}

interface Portal {
  sql: string;
  tokens: PgToken[];
  formatCodes: number[];
  local: LocalResult | undefined;
  localSent: boolean;
  run: EngineRun | undefined;
  described: boolean;
  done: boolean;
}

export class PgConnection {
  readonly pid: number;
  readonly secret: number;
  readonly #socket: Socket;
  readonly #ctx: PgContext;
  readonly #reader: MessageReader;
  readonly #out = new MessageWriter();
  #phase: 'startup' | 'auth' | 'ready' | 'closed' = 'startup';
  #busy = false;
  #paused = false;
  #bytesOut = 0;
  #auth: AuthPlan | undefined;
  #scramStep = 0;
  #target: Target | undefined;
  #startupParams = new Map<string, string>();
  #user: UserDef | undefined;
  #state: SessionState | undefined;
  #skipToSync = false;
  readonly #statements = new Map<string, PreparedStatement>();
  readonly #portals = new Map<string, Portal>();
  /** Engine statements of this connection that are registered and not yet done. */
  readonly #running = new Set<RunningStatement>();

  /** Past the listener's cap: the startup is answered FATAL 53300 (listener.ts). */
  readonly #refuse: boolean;

  constructor(socket: Socket, ctx: PgContext, pid: number, secret: number, refuse = false) {
    this.#refuse = refuse;
    this.#socket = socket;
    this.#ctx = ctx;
    this.pid = pid;
    this.secret = secret;
    this.#reader = new MessageReader(ctx.config['limits.sql_body_bytes']);
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => {
      this.#reader.push(chunk);
      if (this.#reader.buffered > INPUT_HIGH_WATER && this.#busy) {
        this.#paused = true;
        socket.pause();
      }
      void this.#pump();
    });
    socket.on('error', () => undefined);
    socket.on('close', () => this.#closed());
  }

  /** A CancelRequest for this connection: the running statement fails with 57014. */
  cancel(): void {
    for (const r of this.#running)
      r.abort.abort(new UserError('queryCanceled', 'canceling statement due to user request'));
  }

  /** Ends the connection (server shutdown): a FATAL 57P01 first, as PostgreSQL's smart shutdown. */
  terminate(): void {
    if (this.#phase === 'closed') return;
    this.#out.notice(0x45, {
      severity: 'FATAL',
      code: '57P01',
      message: 'terminating connection: the server is shutting down',
    });
    this.#close();
  }

  #closed(): void {
    if (this.#phase === 'closed' && this.#running.size === 0) return;
    this.#phase = 'closed';
    for (const r of this.#running) r.abort.abort(new UserError('unavailable', 'the client closed the connection'));
    for (const p of this.#portals.values()) this.#closePortal(p);
    this.#portals.clear();
    this.#ctx.unregister(this);
  }

  #close(): void {
    const bytes = this.#out.take();
    if (!this.#socket.destroyed) this.#socket.end(bytes);
    this.#closed();
  }

  async #pump(): Promise<void> {
    if (this.#busy) return;
    this.#busy = true;
    try {
      for (;;) {
        if (this.#phase === 'closed') return;
        if (this.#phase === 'startup') {
          const body = this.#reader.startup();
          if (body === null) break;
          await this.#startup(body);
          continue;
        }
        const m = this.#reader.message();
        if (m === null) break;
        if (this.#phase === 'auth') await this.#authMessage(m);
        else await this.#message(m);
      }
    } catch (e) {
      this.#fatal(e);
    } finally {
      this.#busy = false;
      if (this.#paused && this.#phase !== 'closed') {
        this.#paused = false;
        this.#socket.resume();
      }
    }
  }

  /** Sends a FATAL ErrorResponse and closes. */
  #fatal(e: unknown): void {
    if (this.#phase === 'closed') return;
    const err = asUserError(e);
    if (err.kind === 'internal') this.#ctx.logger.error({ err: e }, 'PostgreSQL connection failed');
    this.#out.notice(0x45, errorFields(err, 'FATAL'));
    this.#close();
  }

  /** Writes the buffered replies; waits while the socket's buffer is full. */
  async #flush(): Promise<void> {
    const bytes = this.#out.take();
    if (bytes.length === 0 || this.#socket.destroyed) return;
    this.#bytesOut += bytes.length;
    if (this.#socket.write(bytes)) return;
    await new Promise<void>((resolve) => {
      const done = (): void => {
        this.#socket.off('drain', done);
        this.#socket.off('close', done);
        resolve();
      };
      this.#socket.on('drain', done);
      this.#socket.on('close', done);
    });
  }

  // ---- startup and authentication

  async #startup(body: Buffer): Promise<void> {
    const p = parseStartup(body);
    if (p.kind === 'ssl' || p.kind === 'gssenc') {
      // 'N': no encryption; the client goes on in clear text on the same connection.
      this.#socket.write('N');
      return;
    }
    if (p.kind === 'cancel') {
      this.#ctx.cancel(p.pid, p.secret);
      this.#close();
      return;
    }
    if (this.#refuse) {
      // PostgreSQL's words and code (too_many_connections); libpq shows the message as it is.
      this.#out.notice(0x45, { severity: 'FATAL', code: '53300', message: 'sorry, too many clients already' });
      this.#close();
      return;
    }
    if (p.minor > 0 || p.protocolOptions.length > 0) this.#out.negotiateProtocolVersion(0, p.protocolOptions);
    const s = this.#ctx.services();
    this.#startupParams = p.params;
    this.#target = targetOf(p.params);
    const user = s.storage.catalog.users.get(this.#target.user);
    this.#auth = await this.#ctx.auth().plan(this.#target.user, user);
    if (this.#auth.kind === 'trust') return this.#loginOk(this.#auth.user);
    if (this.#auth.kind === 'cleartext') this.#out.authentication(3);
    else this.#out.authenticationSasl([SCRAM_MECHANISM]);
    this.#phase = 'auth';
    await this.#flush();
  }

  async #authMessage(m: Message): Promise<void> {
    if (m.type !== 0x70) throw protocolError(`expected a password message, got message type ${typeName(m.type)}`);
    const auth = this.#auth!;
    const name = this.#target!.user;
    if (auth.kind === 'cleartext') {
      const r = new BodyReader(m.body, 'PasswordMessage');
      const password = r.cstring();
      r.end();
      return this.#loginOk(await this.#ctx.auth().verifyCleartext(name, password));
    }
    if (auth.kind !== 'scram') throw new Error('BUG: password message after a trusted login');
    const r = new BodyReader(m.body, 'SASLResponse');
    if (this.#scramStep === 0) {
      const mechanism = r.cstring();
      if (mechanism !== SCRAM_MECHANISM)
        throw new UserError(
          'auth',
          `SASL authentication mechanism ${mechanism} is not supported (offered: ${SCRAM_MECHANISM})`,
        );
      const length = r.int32();
      const data = r.bytes(length);
      r.end();
      this.#scramStep = 1;
      this.#out.authentication(11, Buffer.from(auth.exchange.first(data.toString('utf8'))));
      await this.#flush();
      return;
    }
    const final = auth.exchange.final(r.bytes(r.remaining).toString('utf8'));
    const user = this.#ctx.services().storage.catalog.users.get(name);
    if (user === undefined) throw new UserError('auth', `password authentication failed for user "${name}"`);
    this.#out.authentication(12, Buffer.from(final));
    await this.#loginOk(user);
  }

  async #loginOk(user: UserDef): Promise<void> {
    const target = this.#target!;
    const catalog = this.#ctx.services().storage.catalog;
    const t = requireMembership(catalog, user, target.tenant);
    let database = target.database;
    if (catalog.database(t.name, database) === undefined) {
      // libpq names the database after the user when none is given: that one need not exist.
      const asked = this.#startupParams.get('database');
      if (asked === undefined || asked === user.name) database = 'public';
      else if (privilegeOn(user, t, database) !== undefined) throw databaseNotFound(database);
    }
    this.#user = user;
    const settings = initialSettings(
      user.name,
      user.admin,
      database,
      this.#ctx.version,
      new Map([...this.#startupParams, ...target.settings]),
    );
    this.#state = {
      user: user.name,
      tenant: t.name,
      database,
      settings,
      tx: 'I',
      sundialVersion: this.#ctx.version,
      pid: this.pid,
      hasDatabase: (n) => this.#ctx.services().storage.catalog.database(t.name, n) !== undefined,
    };
    this.#phase = 'ready';
    const out = this.#out;
    out.authentication(0);
    for (const name of REPORTED) out.parameterStatus(displayName(name), settings.get(name) ?? '');
    out.backendKeyData(this.pid, this.secret);
    out.readyForQuery('I');
    await this.#flush();
  }

  // ---- the query protocols

  async #message(m: Message): Promise<void> {
    if (this.#skipToSync && m.type !== 0x53 && m.type !== 0x58) return;
    try {
      switch (m.type) {
        case 0x51: // 'Q'
          return await this.#simpleQuery(m);
        case 0x50: // 'P'
          return this.#parse(m);
        case 0x42: // 'B'
          return this.#bind(m);
        case 0x44: // 'D'
          return await this.#describe(m);
        case 0x45: // 'E'
          return await this.#execute(m);
        case 0x43: // 'C'
          return this.#closeMessage(m);
        case 0x53: // 'S'
          return await this.#sync();
        case 0x48: // 'H'
          return await this.#flush();
        case 0x58: // 'X'
          this.#close();
          return;
        case 0x46: // 'F'
          throw new UserError(
            'notImplemented',
            'This feature is not implemented: the fast-path function call interface',
          );
        case 0x64: // 'd', 'c', 'f': COPY data outside COPY
        case 0x63:
        case 0x66:
          throw protocolError(`unexpected COPY message type ${typeName(m.type)}: no COPY is in progress`);
        default:
          // PostgreSQL closes the connection on a message type it does not know.
          this.#fatal(protocolError(`invalid frontend message type ${typeName(m.type)}`));
      }
    } catch (e) {
      const err = asUserError(e);
      if (err.kind === 'pgProtocol' || err.kind === 'bodyTooLarge') return this.#fatal(err);
      this.#error(e);
      if (m.type !== 0x51) this.#skipToSync = true;
      if (m.type !== 0x51 && m.type !== 0x53) return;
      await this.#flush();
    }
  }

  /** An ErrorResponse for a failed statement; bugs and corruption are logged. */
  #error(e: unknown): void {
    const err = asUserError(e);
    if (err.status >= 500 && err.kind !== 'queryTimeout' && err.kind !== 'queryCanceled' && err.kind !== 'unavailable')
      this.#ctx.logger.error({ err: e }, 'PostgreSQL statement failed');
    this.#out.notice(0x45, errorFields(err));
    const state = this.#state;
    if (state !== undefined && state.tx === 'T') state.tx = 'E';
  }

  async #simpleQuery(m: Message): Promise<void> {
    const r = new BodyReader(m.body, 'Query');
    const sql = r.cstring();
    r.end();
    const statements = splitStatements(sql);
    if (statements.length === 0) this.#out.empty(0x49); // EmptyQueryResponse
    for (const st of statements) {
      const portal = this.#newPortal(st.text, st.tokens, []);
      try {
        const fields = await this.#describePortal(portal);
        if (fields !== undefined) this.#out.rowDescription(describeFields(fields, resultFormats([], fields.length)));
        await this.#executePortal(portal, 0);
      } catch (e) {
        this.#error(e);
        break;
      } finally {
        this.#closePortal(portal);
      }
    }
    this.#out.readyForQuery(this.#state!.tx);
    await this.#flush();
  }

  #parse(m: Message): void {
    const r = new BodyReader(m.body, 'Parse');
    const name = r.cstring();
    const sql = r.cstring();
    const n = r.int16();
    const declared: number[] = [];
    for (let i = 0; i < n; i++) declared.push(r.int32());
    r.end();
    const statements = splitStatements(sql);
    if (statements.length > 1)
      throw new UserError('multiStatement', 'cannot insert multiple commands into a prepared statement');
    const tokens = statements[0]?.tokens ?? [];
    const text = statements[0]?.text ?? '';
    const count = Math.max(parameterCount(tokens), declared.length);
    const paramTypes = Array.from({ length: count }, (_, i) => declared[i] ?? 0);
    this.#statements.set(name, { sql: text, tokens, paramTypes });
    this.#out.empty(0x31); // ParseComplete
  }

  #bind(m: Message): void {
    const r = new BodyReader(m.body, 'Bind');
    const portalName = r.cstring();
    const statementName = r.cstring();
    const st = this.#statements.get(statementName);
    if (st === undefined) throw new UserError('invalidParam', `prepared statement "${statementName}" does not exist`);
    const nFormats = r.int16();
    const formats: number[] = [];
    for (let i = 0; i < nFormats; i++) formats.push(r.int16());
    const nParams = r.int16();
    if (nParams !== st.paramTypes.length)
      throw protocolError(
        `bind message supplies ${nParams} parameters, but prepared statement "${statementName}" requires ${st.paramTypes.length}`,
      );
    if (nFormats > 1 && nFormats !== nParams)
      throw protocolError(`bind message has ${nFormats} parameter formats but ${nParams} parameters`);
    const literals: string[] = [];
    for (let i = 0; i < nParams; i++) {
      const len = r.int32();
      const value = len === -1 ? null : r.bytes(len);
      const format = nFormats === 0 ? 0 : nFormats === 1 ? formats[0]! : formats[i]!;
      if (format !== 0 && format !== 1) throw protocolError(`invalid parameter format code ${format}`);
      literals.push(parameterLiteral(value, format, st.paramTypes[i]!, i + 1));
    }
    const nResults = r.int16();
    const resultCodes: number[] = [];
    for (let i = 0; i < nResults; i++) {
      const code = r.int16();
      if (code !== 0 && code !== 1) throw protocolError(`invalid result format code ${code}`);
      resultCodes.push(code);
    }
    r.end();
    const sql = nParams === 0 ? st.sql : substitute(st.sql, st.tokens, literals);
    const old = this.#portals.get(portalName);
    if (old !== undefined) this.#closePortal(old);
    this.#portals.set(portalName, this.#newPortal(sql, nParams === 0 ? st.tokens : tokenizePg(sql), resultCodes));
    this.#out.empty(0x32); // BindComplete
  }

  async #describe(m: Message): Promise<void> {
    const r = new BodyReader(m.body, 'Describe');
    const kind = r.byte();
    const name = r.cstring();
    r.end();
    if (kind === 0x53) {
      const st = this.#statements.get(name);
      if (st === undefined) throw new UserError('invalidParam', `prepared statement "${name}" does not exist`);
      this.#out.parameterDescription(st.paramTypes.map((t) => (t === 0 ? OID.text : t)));
      // The columns of a statement whose parameters are not bound yet: planned with NULLs (0
      // after LIMIT and OFFSET, which take no NULL), never executed.
      const literals = st.paramTypes.map((_, i) =>
        st.tokens.some(
          (t, k) =>
            t.kind === 'param' &&
            t.value === String(i + 1) &&
            ['limit', 'offset'].includes(st.tokens[k - 1]?.value ?? ''),
        )
          ? '0'
          : 'NULL',
      );
      const sql = st.paramTypes.length === 0 ? st.sql : substitute(st.sql, st.tokens, literals);
      const probe = this.#newPortal(sql, tokenizePg(sql), []);
      try {
        const fields = MUTATING.has(leadingWords(probe.tokens, 1)[0]!) ? undefined : await this.#describePortal(probe);
        if (fields === undefined) this.#out.empty(0x6e);
        else this.#out.rowDescription(describeFields(fields, resultFormats([], fields.length)));
      } finally {
        this.#closePortal(probe);
      }
      return;
    }
    if (kind !== 0x50) throw protocolError(`invalid Describe kind ${typeName(kind)} (want 'S' or 'P')`);
    const portal = this.#portals.get(name);
    if (portal === undefined) throw new UserError('invalidParam', `portal "${name}" does not exist`);
    const fields = await this.#describePortal(portal);
    if (fields === undefined)
      this.#out.empty(0x6e); // NoData
    else this.#out.rowDescription(describeFields(fields, resultFormats(portal.formatCodes, fields.length)));
  }

  async #execute(m: Message): Promise<void> {
    const r = new BodyReader(m.body, 'Execute');
    const name = r.cstring();
    const maxRows = r.int32();
    r.end();
    const portal = this.#portals.get(name);
    if (portal === undefined) throw new UserError('invalidParam', `portal "${name}" does not exist`);
    if (portal.done) {
      this.#out.commandComplete(portal.local?.tag ?? 'SELECT 0');
      return;
    }
    await this.#executePortal(portal, maxRows > 0 ? maxRows : 0);
  }

  #closeMessage(m: Message): void {
    const r = new BodyReader(m.body, 'Close');
    const kind = r.byte();
    const name = r.cstring();
    r.end();
    if (kind === 0x53) this.#statements.delete(name);
    else if (kind === 0x50) {
      const p = this.#portals.get(name);
      if (p !== undefined) this.#closePortal(p);
      this.#portals.delete(name);
    } else throw protocolError(`invalid Close kind ${typeName(kind)} (want 'S' or 'P')`);
    this.#out.empty(0x33); // CloseComplete
  }

  async #sync(): Promise<void> {
    this.#skipToSync = false;
    const state = this.#state!;
    // The end of an implicit transaction drops its portals (PostgreSQL keeps them only inside BEGIN).
    if (state.tx === 'I') {
      for (const p of this.#portals.values()) this.#closePortal(p);
      this.#portals.clear();
    }
    this.#out.readyForQuery(state.tx);
    await this.#flush();
  }

  // ---- portals: a statement with its parameters bound

  #newPortal(sql: string, tokens: PgToken[], formatCodes: number[]): Portal {
    return {
      sql,
      tokens,
      formatCodes,
      local: undefined,
      localSent: false,
      run: undefined,
      described: false,
      done: false,
    };
  }

  #closePortal(p: Portal): void {
    const run = p.run;
    p.run = undefined;
    p.done = true;
    if (run === undefined) return;
    void run.it?.return?.()?.catch(() => undefined);
    this.#finish(run);
  }

  #finish(run: EngineRun): void {
    if (!this.#running.delete(run.statement)) return;
    run.statement.done(this.#bytesOut - run.bytesAtStart);
  }

  /** The current user, checked again before each statement: a dropped user's connection ends. */
  #currentUser(): UserDef {
    const now = this.#ctx.services().storage.catalog.users.get(this.#user!.name);
    if (now === undefined || now.id !== this.#user!.id)
      throw new UserError('auth', `role "${this.#user!.name}" does not exist any more`);
    this.#user = now;
    return now;
  }

  #tenant(user: UserDef): TenantDef {
    return requireMembership(this.#ctx.services().storage.catalog, user, this.#state!.tenant);
  }

  /** The answers made here (session commands, catalog queries), or undefined: the engine's. */
  #local(portal: Portal): LocalResult | undefined {
    const state = this.#state!;
    const session = sessionCommand(portal.sql, portal.tokens, state);
    if (session !== undefined) return session;
    const user = this.#currentUser();
    const t = this.#tenant(user);
    const catalog = this.#ctx.services().storage.catalog;
    const answer = catalogQuery(portal.sql, portal.tokens, { catalog, user, tenant: t, state });
    if (answer !== undefined) requirePasswordChanged(user);
    return answer;
  }

  /** The columns the portal returns (undefined: none), starting a reading statement in the engine. */
  async #describePortal(portal: Portal): Promise<Field[] | undefined> {
    if (!portal.described) {
      portal.described = true;
      portal.local = this.#local(portal);
    }
    if (portal.local !== undefined) return portal.local.fields.length > 0 ? portal.local.fields : undefined;
    if (MUTATING.has(leadingWords(portal.tokens, 1)[0]!)) return undefined;
    const run = portal.run ?? (portal.run = await this.#start(portal));
    return run.fields;
  }

  async #start(portal: Portal): Promise<EngineRun> {
    const s = this.#ctx.services();
    const user = this.#currentUser();
    const t = this.#tenant(user);
    if (user.mustChangePassword) requireOnlyPasswordChange(portal.sql, user);
    const statement = startStatement(this.#ctx.config, this.#ctx.version, s, {
      user,
      tenant: t,
      database: this.#state!.database,
      sql: portal.sql,
      api: 'pg',
      bytesIn: portal.sql.length,
    });
    this.#running.add(statement);
    const run: EngineRun = {
      fields: undefined,
      it: undefined,
      statement,
      pending: undefined,
      offset: 0,
      rows: 0,
      bytesAtStart: this.#bytesOut,
    };
    statement.query.state = 'SCHEDULING';
    try {
      const result = await s.sql.engine(this.#ctx.planCache).run(portal.sql, statement.session);
      if (result.kind === 'rows') {
        run.it = trackResult(statement.query, result);
        const counted = ['insert', 'update'].includes(leadingWords(portal.tokens, 1)[0]!);
        if (!counted) run.fields = [...result.schema.fields];
      }
    } catch (e) {
      this.#finish(run);
      throw e;
    }
    return run;
  }

  async #executePortal(portal: Portal, maxRows: number): Promise<void> {
    if (!portal.described) await this.#describePortal(portal);
    const local = portal.local;
    if (local !== undefined) {
      if (!portal.localSent && local.fields.length > 0) {
        const batch = localBatch(local);
        new RowEncoder(local.fields, resultFormats(portal.formatCodes, local.fields.length)).write(
          this.#out,
          batch,
          0,
          batch.length,
        );
      }
      portal.localSent = true;
      for (const [k, v] of local.reported ?? []) this.#out.parameterStatus(k, v);
      this.#out.commandComplete(local.tag);
      portal.done = true;
      return;
    }
    const run = portal.run ?? (portal.run = await this.#start(portal));
    try {
      if (run.fields === undefined) {
        const tag = await this.#commandTag(portal, run);
        this.#out.commandComplete(tag);
        portal.done = true;
        this.#finish(run);
        return;
      }
      const suspended = await this.#stream(run, resultFormats(portal.formatCodes, run.fields.length), maxRows);
      if (suspended) {
        this.#out.empty(0x73); // PortalSuspended
        return;
      }
      this.#out.commandComplete(`SELECT ${run.rows}`);
      portal.done = true;
      this.#finish(run);
    } catch (e) {
      portal.done = true;
      this.#finish(run);
      throw e;
    }
  }

  /** Sends rows until the result ends (false) or `maxRows` were sent (true: suspended). */
  async #stream(run: EngineRun, formats: number[], maxRows: number): Promise<boolean> {
    const encoder = new RowEncoder(run.fields!, formats);
    let sent = 0;
    for (;;) {
      if (run.pending === undefined) {
        const r = await run.it!.next();
        if (r.done === true) return false;
        run.pending = r.value;
        run.offset = 0;
      }
      const b = run.pending;
      const end = maxRows > 0 ? Math.min(b.length, run.offset + maxRows - sent) : b.length;
      encoder.write(this.#out, b, run.offset, end);
      sent += end - run.offset;
      run.rows += end - run.offset;
      run.offset = end;
      if (end >= b.length) run.pending = undefined;
      if (this.#out.size >= FLUSH_BYTES) await this.#flush();
      if (this.#phase === 'closed') throw new UserError('unavailable', 'the client closed the connection');
      if (maxRows > 0 && sent >= maxRows) return true;
    }
  }

  /** The CommandComplete tag of a statement without a result set (INSERT and UPDATE count rows). */
  async #commandTag(portal: Portal, run: EngineRun): Promise<string> {
    const words = leadingWords(portal.tokens, 3).map((w) => w.toUpperCase());
    let count = 0n;
    if (run.it !== undefined) {
      for (let r = await run.it.next(); r.done !== true; r = await run.it.next()) {
        const col = r.value.columns[0];
        for (let i = 0; col !== undefined && i < r.value.length; i++) {
          const v = col.values as ArrayLike<unknown>;
          count += BigInt(v[i] as bigint | number);
        }
      }
    }
    switch (words[0]) {
      case 'INSERT':
        return `INSERT 0 ${count}`;
      case 'UPDATE':
        return `UPDATE ${count}`;
      case 'DELETE':
        // The engine does not count deleted rows; JDBC needs a number here.
        return 'DELETE 0';
      case 'CREATE':
      case 'DROP':
      case 'ALTER':
        return `${words[0]} ${words[1] === 'EXTERNAL' || words[1] === 'STREAM' ? words[2] : words[1]}`;
      default:
        return words[0] || 'OK';
    }
  }
}

/** A local answer's rows as one batch. */
function localBatch(local: LocalResult): RecordBatch {
  const columns = local.fields.map((f, c) => {
    const values = local.rows.map((row) => row[c] ?? null);
    const validity = values.some((v) => v === null) ? Uint8Array.from(values, (v) => (v === null ? 0 : 1)) : undefined;
    return vectorFrom(f.type, values, validity);
  });
  return { schema: { fields: local.fields }, columns, length: local.rows.length };
}

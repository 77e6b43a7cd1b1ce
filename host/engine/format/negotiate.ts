// Accept negotiation for /api/v1/sql (CONTRACT.md "SQL"): a list of media ranges with q-values
// (RFC 9110 §12.5.1). Each concrete type we serve takes the q of the most specific range that
// matches it; the best q wins, an exact mention beating a wildcard at equal q, then the order
// of the header. A wildcard alone (`*/*`, `text/*`, `application/*`) or no header means CSV
// sent as `text/csv`; otherwise the Content-Type is the type the client named. Arrow's binary
// stream is served only when named. CnosDB compares the header as one string (no lists, no q):
// departs, in the direction of accepting more.

import { UserError } from '../../core/errors.js';

export type ResultFormat = 'csv' | 'tsv' | 'json' | 'ndjson' | 'table' | 'arrow';

/** Every concrete media type served, in the order that breaks remaining ties. */
const MEDIA_TYPES: ReadonlyArray<readonly [string, ResultFormat]> = [
  ['text/csv', 'csv'],
  ['application/csv', 'csv'],
  ['application/json', 'json'],
  ['application/nd-json', 'ndjson'],
  ['application/x-ndjson', 'ndjson'],
  ['application/ndjson', 'ndjson'],
  ['text/tsv', 'tsv'],
  ['text/table', 'table'],
  ['application/vnd.apache.arrow.stream', 'arrow'],
];

/** The Content-Type each format is sent with when the client named no concrete type. */
export const CANONICAL_TYPE: Readonly<Record<ResultFormat, string>> = {
  csv: 'text/csv',
  tsv: 'text/tsv',
  json: 'application/json',
  ndjson: 'application/nd-json',
  table: 'text/table',
  arrow: 'application/vnd.apache.arrow.stream',
};

interface Range {
  type: string;
  subtype: string;
  q: number;
  index: number;
}

function parseRanges(accept: string): Range[] {
  const out: Range[] = [];
  accept.split(',').forEach((part, index) => {
    const [media = '', ...params] = part.split(';');
    const m = /^\s*([a-z0-9!#$%&'*+.^_`|~-]+)\/([a-z0-9!#$%&'*+.^_`|~-]+)\s*$/i.exec(media);
    if (m === null) return;
    let q = 1;
    for (const p of params) {
      const kv = /^\s*q\s*=\s*(\S*)\s*$/i.exec(p);
      if (kv === null) continue;
      if (!/^(0(\.\d{0,3})?|1(\.0{0,3})?)$/.test(kv[1]!)) return; // a malformed q voids the range
      q = Number(kv[1]);
    }
    const type = m[1]!.toLowerCase();
    const subtype = m[2]!.toLowerCase();
    if (type === '*' && subtype !== '*') return;
    out.push({ type, subtype, q, index });
  });
  return out;
}

/** Specificity of `range` for `mediaType`: 2 exact, 1 `type/*`, 0 `*\/*`, -1 no match. */
function specificity(range: Range, mediaType: string): number {
  const [type, subtype] = mediaType.split('/') as [string, string];
  if (range.type === '*') return 0;
  if (range.type !== type) return -1;
  if (range.subtype === '*') return 1;
  return range.subtype === subtype ? 2 : -1;
}

/** Accept negotiation with lists and q-values; throws UserError('badHeader') (040005) when nothing is acceptable. */
export function negotiateFormat(accept: string | undefined): { format: ResultFormat; contentType: string } {
  if (accept === undefined || accept.trim() === '') return { format: 'csv', contentType: 'text/csv' };
  const ranges = parseRanges(accept);
  let best: Candidate | undefined;
  const consider = (c: Candidate): void => {
    if (c.q > 0 && (best === undefined || better(c, best))) best = c;
  };
  const excluded = new Set<ResultFormat>();
  const wildcardQ = new Map<ResultFormat, number>();
  MEDIA_TYPES.forEach(([mediaType, format], order) => {
    let exact: Range | undefined;
    let wildcard: Range | undefined;
    let wildcardSpec = -1;
    for (const r of ranges) {
      const s = specificity(r, mediaType);
      if (s === 2) {
        if (exact === undefined || r.q > exact.q) exact = r;
      } else if (s >= 0 && (s > wildcardSpec || (s === wildcardSpec && r.q > wildcard!.q))) {
        wildcardSpec = s;
        wildcard = r;
      }
    }
    if (exact !== undefined) {
      if (exact.q === 0) excluded.add(format);
      consider({ format, contentType: mediaType, q: exact.q, exact: true, index: exact.index, order });
    } else if (wildcard !== undefined) {
      wildcardQ.set(format, Math.max(wildcardQ.get(format) ?? 0, wildcard.q));
    }
  });
  // A wildcard stands for each format under its canonical type, unless the client excluded it.
  // Arrow, a binary stream, only for a client that names it: `*/*` never stands for it.
  MEDIA_TYPES.forEach(([, format], order) => {
    const q = wildcardQ.get(format);
    if (q === undefined || excluded.has(format) || format === 'arrow') return;
    consider({ format, contentType: CANONICAL_TYPE[format], q, exact: false, index: Infinity, order });
  });
  if (best === undefined) {
    throw new UserError(
      'badHeader',
      `unsupported Accept header ${JSON.stringify(accept.length > 200 ? accept.slice(0, 200) + '...' : accept)}: want text/csv, text/tsv, application/json, application/nd-json, text/table or application/vnd.apache.arrow.stream`,
    );
  }
  const chosen: Candidate = best;
  return { format: chosen.format, contentType: chosen.contentType };
}

interface Candidate {
  format: ResultFormat;
  contentType: string;
  q: number;
  exact: boolean;
  /** Position of the matching range in the header. */
  index: number;
  /** Position in MEDIA_TYPES. */
  order: number;
}

function better(a: Candidate, b: Candidate): boolean {
  if (a.q !== b.q) return a.q > b.q;
  if (a.exact !== b.exact) return a.exact;
  if (a.index !== b.index) return a.index < b.index;
  return a.order < b.order;
}

// THROWAWAY: a stand-in for host/engine/format/ (branch `format`), with its exact API, so that the
// SQL route runs before that branch lands. CSV/TSV only as far as the engine's own tests need;
// delete this file at merge and import from '../../engine/format/index.js' in sql.ts instead.

import { UserError } from '../../core/errors.js';
import { getValue, isValid, type RecordBatch, type Schema } from '../../engine/batch.js';
import { formatFloat } from '../../engine/exec/cast.js';
import { formatTimestamp } from '../../engine/time.js';

export type ResultFormat = 'csv' | 'tsv' | 'json' | 'ndjson' | 'table';

export interface ResultWriter {
  write(batch: RecordBatch): Uint8Array;
  end(): Uint8Array;
}

const MEDIA: Record<string, { format: ResultFormat; contentType: string }> = {
  'text/csv': { format: 'csv', contentType: 'text/csv' },
  'application/csv': { format: 'csv', contentType: 'application/csv' },
  'text/tsv': { format: 'tsv', contentType: 'text/tsv' },
  'application/json': { format: 'json', contentType: 'application/json' },
  'application/nd-json': { format: 'ndjson', contentType: 'application/nd-json' },
  'text/table': { format: 'table', contentType: 'text/table' },
};

export function negotiateFormat(accept: string | undefined): { format: ResultFormat; contentType: string } {
  const a = (accept ?? '').split(',')[0]!.split(';')[0]!.trim().toLowerCase();
  if (a === '' || a === '*/*' || a === 'text/*' || a === 'application/*') return MEDIA['text/csv']!;
  const m = MEDIA[a];
  if (m === undefined) throw new UserError('badHeader', `Invalid header: accept type not support: ${accept}`);
  return m;
}

const enc = new TextEncoder();

function text(batch: RecordBatch, c: number, i: number): string {
  const v = batch.columns[c]!;
  if (!isValid(v, i)) return '';
  const x = getValue(v, i);
  if (v.type.id === 'Timestamp') {
    const t = formatTimestamp(x as bigint, v.type.unit);
    const [head, frac = ''] = t.split('.');
    return `${head}.${frac.padEnd(9, '0')}`;
  }
  if (v.type.id === 'Float64') return formatFloat(x as number);
  return String(x);
}

function quote(s: string, sep: string): string {
  return s.includes(sep) || s.includes('"') || s.includes('\n') || s.includes('\r') ? `"${s.replace(/"/g, '""')}"` : s;
}

class CsvWriter implements ResultWriter {
  #headerDone = false;
  constructor(
    readonly schema: Schema,
    readonly sep: string,
  ) {}

  #header(): string {
    if (this.#headerDone) return '';
    this.#headerDone = true;
    return this.schema.fields.map((f) => quote(f.name, this.sep)).join(this.sep) + '\n';
  }

  write(batch: RecordBatch): Uint8Array {
    let out = this.#header();
    for (let i = 0; i < batch.length; i++) {
      const cells = batch.columns.map((_, c) => quote(text(batch, c, i), this.sep));
      out += (cells.length === 1 && cells[0] === '' ? '""' : cells.join(this.sep)) + '\n';
    }
    return enc.encode(out);
  }

  end(): Uint8Array {
    return enc.encode(this.#header());
  }
}

export function createResultWriter(format: ResultFormat, schema: Schema): ResultWriter {
  if (format !== 'csv' && format !== 'tsv') throw new UserError('notImplemented', `This feature is not implemented: ${format} output (branch format)`);
  return new CsvWriter(schema, format === 'csv' ? ',' : '\t');
}

export function streamErrorTrailer(_format: ResultFormat, code: string, message: string): Uint8Array {
  return enc.encode(JSON.stringify({ error_code: code, error_message: message }) + '\n');
}

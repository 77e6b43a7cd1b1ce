import { describe, expect, it } from 'vitest';
import { UserError } from '../../../host/core/errors.js';
import { negotiateFormat } from '../../../host/engine/format/index.js';

// [Accept header, format, Content-Type]
const ACCEPTED: ReadonlyArray<readonly [string | undefined, string, string]> = [
  [undefined, 'csv', 'text/csv'],
  ['', 'csv', 'text/csv'],
  ['*/*', 'csv', 'text/csv'],
  ['application/*', 'csv', 'text/csv'],
  ['text/*', 'csv', 'text/csv'],
  ['text/csv', 'csv', 'text/csv'],
  ['application/csv', 'csv', 'application/csv'],
  ['TEXT/CSV', 'csv', 'text/csv'],
  ['text/tsv', 'tsv', 'text/tsv'],
  ['application/json', 'json', 'application/json'],
  ['application/json; charset=utf-8', 'json', 'application/json'],
  ['application/nd-json', 'ndjson', 'application/nd-json'],
  ['application/x-ndjson', 'ndjson', 'application/x-ndjson'],
  ['application/ndjson', 'ndjson', 'application/ndjson'],
  ['text/table', 'table', 'text/table'],
  ['text/html, application/json', 'json', 'application/json'],
  ['application/json, text/csv', 'json', 'application/json'],
  ['text/csv;q=0.5, application/json', 'json', 'application/json'],
  ['application/json;q=0.2, text/table;q=0.9, */*;q=0.1', 'table', 'text/table'],
  ['*/*, application/json', 'json', 'application/json'],
  ['*/*;q=0.9, text/tsv;q=0.5', 'csv', 'text/csv'],
  ['text/csv;q=0, */*', 'json', 'application/json'],
  ['application/json;q=0, application/*', 'csv', 'text/csv'],
  ['text/html, */*;q=0.1', 'csv', 'text/csv'],
  ['application/json;q=1.000', 'json', 'application/json'],
  ['application/vnd.apache.arrow.stream', 'arrow', 'application/vnd.apache.arrow.stream'],
  ['application/vnd.apache.arrow.stream, application/json;q=0.5', 'arrow', 'application/vnd.apache.arrow.stream'],
  ['application/vnd.apache.arrow.stream;q=0.5, application/json', 'json', 'application/json'],
];

const REFUSED: readonly string[] = [
  '*',
  'xx',
  'text/html',
  'application/xml, image/*',
  'application/json;q=0',
  'text/csv;q=2',
  'application/arrow',
  '*/json',
  'text/csv;q=0, application/csv;q=0, application/json;q=0, application/nd-json;q=0, text/tsv;q=0, text/table;q=0, */*',
  // Arrow's binary stream only when named, never for a wildcard.
  'text/csv;q=0, application/csv;q=0, application/json;q=0, application/nd-json;q=0, text/tsv;q=0, text/table;q=0, application/*',
];

describe('negotiateFormat', () => {
  for (const [accept, format, contentType] of ACCEPTED) {
    it(`answers ${JSON.stringify(accept)} with ${format} as ${contentType}`, () => {
      expect(negotiateFormat(accept)).toEqual({ format, contentType });
    });
  }
  it('shortens a long header in the message', () => {
    expect(() => negotiateFormat('x/' + 'y'.repeat(5000))).toThrow(
      new RegExp(`^unsupported Accept header "x/${'y'.repeat(198)}\\.\\.\\.": want`),
    );
  });
  for (const accept of REFUSED) {
    it(`refuses ${JSON.stringify(accept)} with 040005`, () => {
      let err: unknown;
      try {
        negotiateFormat(accept);
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(UserError);
      expect((err as UserError).code).toBe('040005');
      expect((err as UserError).status).toBe(400);
      expect((err as UserError).message).toBe(
        `unsupported Accept header ${JSON.stringify(accept)}: want text/csv, text/tsv, application/json, application/nd-json, text/table or application/vnd.apache.arrow.stream`,
      );
    });
  }
});

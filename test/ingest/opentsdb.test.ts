// OpenTSDB text and JSON -> batches, in-process: every accepted shape, every rejection with its
// code and message, and the timestamp rule (precision given, else 10/13 digits).

import { describe, expect, it } from 'vitest';
import { parseOpenTsdbJson } from '../../host/ingest/opentsdb-json.js';
import { parseOpenTsdbText, type OpenTsdbOptions } from '../../host/ingest/opentsdb-text.js';
import { rejection, rowsOf, utf8 } from './ingest-support.js';

const AUTO: OpenTsdbOptions = { precision: undefined, dbUnit: 'ns' };
const text = (body: string, o: OpenTsdbOptions = AUTO) => rowsOf(parseOpenTsdbText(utf8(body), o));
const json = (body: string, o: OpenTsdbOptions = AUTO) => rowsOf(parseOpenTsdbJson(utf8(body), o).batches);
const S = 1_000_000_000n;

describe('OpenTSDB text', () => {
  it('reads lines as Telegraf sends them: put, metric, seconds, value, sorted tags', () => {
    expect(
      text('put cpu.usage_idle 1700000000 98.5 cpu=cpu0 host=a\nput cpu.usage_idle 1700000010 97 cpu=cpu0 host=a\n'),
    ).toEqual([
      { table: 'cpu.usage_idle', time: 1700000000n * S, cpu: 'cpu0', host: 'a', value: 98.5 },
      { table: 'cpu.usage_idle', time: 1700000010n * S, cpu: 'cpu0', host: 'a', value: 97 },
    ]);
  });

  it('accepts lines without put, CRLF, blank lines, runs of spaces and tabs', () => {
    expect(text('m 1 1 t=a\r\n\r\n  m\t2   2.5 \tt=b  \n\n')).toEqual([
      { table: 'm', time: 1n * S, t: 'a', value: 1 },
      { table: 'm', time: 2n * S, t: 'b', value: 2.5 },
    ]);
  });

  it('reads integer, decimal, signed and exponent values as DOUBLE', () => {
    expect(text('m 1 -3 k=a\nm 2 +.5 k=a\nm 3 1e3 k=a\nm 4 7. k=a').map((r) => r.value)).toEqual([-3, 0.5, 1000, 7]);
  });

  it('applies the digit rule without precision: up to 10 digits seconds, 11-13 milliseconds', () => {
    expect(
      text('m 1 1 k=a\nm 1700000000 1 k=a\nm 1700000000123 1 k=a\nm 99999999999 1 k=a').map((r) => r.time),
    ).toEqual([1n * S, 99_999_999_999n * 1_000_000n, 1_700_000_000n * S, 1_700_000_000_123n * 1_000_000n]);
  });

  it('reads timestamps in the precision given', () => {
    expect(text('m 1700000000123456 1 k=a', { precision: 'us', dbUnit: 'ns' })[0]!.time).toBe(
      1_700_000_000_123_456_000n,
    );
    expect(text('m 5 1 k=a', { precision: 'ns', dbUnit: 'ns' })[0]!.time).toBe(5n);
    expect(text('m 1700000000 1 k=a', { precision: 's', dbUnit: 'ms' })[0]!.time).toBe(1_700_000_000_000n);
  });

  it('converts to the database precision, truncating', () => {
    expect(text('m 1700000000123456 1 k=a', { precision: 'us', dbUnit: 'ms' })[0]!.time).toBe(1_700_000_000_123n);
    expect(text('m -1700000000123456 1 k=a', { precision: 'us', dbUnit: 'ms' })[0]!.time).toBe(-1_700_000_000_123n);
  });

  it('accepts an empty body', () => {
    expect(parseOpenTsdbText(utf8(''), AUTO)).toEqual([]);
    expect(parseOpenTsdbText(utf8('\n\n'), AUTO)).toEqual([]);
  });

  const rejected: Array<[string, string, string, OpenTsdbOptions?]> = [
    ['m 1 1 k=a\nm 2', '040010', "line 2: expected '<metric> <timestamp> <value> <tagk>=<tagv>...', found 'm 2'"],
    // The interface document: a point has "one or more tag pairs", as OpenTSDB requires.
    ['m 1 1 k=a\nm 2 2', '040010', 'line 2: expected at least one tag <tagk>=<tagv> after the value'],
    ['put m 1 1   ', '040010', 'line 1: expected at least one tag <tagk>=<tagv> after the value'],
    ['m x 1 k=a', '040010', "line 1: invalid timestamp 'x', expected an integer"],
    ['m 1.5 1 k=a', '040010', "line 1: invalid timestamp '1.5', expected an integer"],
    [
      'm 17000000001234 1 k=a',
      '040010',
      "line 1: timestamp '17000000001234' has 14 digits; without a precision parameter OpenTSDB timestamps are seconds (up to 10 digits) or milliseconds (13 digits)",
    ],
    ['m 1 NaN k=a', '040010', "line 1: invalid value 'NaN', expected an integer or decimal number"],
    ['m 1 1e999 k=a', '040010', "line 1: value '1e999' is out of the range of a DOUBLE"],
    ['m 1 0x10 k=a', '040010', "line 1: invalid value '0x10', expected an integer or decimal number"],
    ['m 1 1 k', '040010', "line 1: invalid tag 'k', expected <tagk>=<tagv>"],
    ['m 1 1 =v', '040010', "line 1: invalid tag '=v', expected <tagk>=<tagv>"],
    ['m 1 1 k=', '040010', "line 1: invalid tag 'k=', expected <tagk>=<tagv>"],
    ['m 1 1 k=a k=b', '040010', "line 1: tag 'k' is given twice with different values"],
    ['m 1 1 time=a', '020010', "line 1: 'time' is reserved and cannot be a tag name"],
    ['m 1 1 value=a', '020010', "line 1: column 'value' of table 'm' is TAG in this request, written as DOUBLE"],
    [
      'm 9223372037 1 k=a',
      '020012',
      'line 1: timestamp 9223372037 (s) is out of range when converted to the database precision',
    ],
  ];
  for (const [body, code, message, o] of rejected) {
    it(`rejects ${JSON.stringify(body)} with ${code}`, () =>
      expect(rejection(() => parseOpenTsdbText(utf8(body), o ?? AUTO))).toEqual([code, message]));
  }

  it('rejects invalid UTF-8', () => {
    expect(rejection(() => parseOpenTsdbText(Uint8Array.from([0x6d, 0x20, 0xff]), AUTO))).toEqual([
      '040010',
      'the body is not valid UTF-8',
    ]);
  });
});

describe('OpenTSDB JSON', () => {
  it('reads one object and an array, with numeric strings and extra keys', () => {
    expect(json('{"metric":"sys.cpu","timestamp":1700000000,"value":42.5,"tags":{"host":"a"},"extra":1}')).toEqual([
      { table: 'sys.cpu', time: 1700000000n * S, host: 'a', value: 42.5 },
    ]);
    expect(
      json(
        '[{"metric":"m","timestamp":"1700000000123","value":"1.5","tags":{"a":"1","b":"2"}},{"metric":"m","timestamp":1,"value":-2,"tags":{"a":"0"}}]',
      ),
    ).toEqual([
      { table: 'm', time: S, a: '0', value: -2 },
      { table: 'm', time: 1_700_000_000_123_000_000n, a: '1', b: '2', value: 1.5 },
    ]);
  });

  it('counts the data points', () => {
    expect(
      parseOpenTsdbJson(
        utf8(
          '[{"metric":"m","timestamp":1,"value":1,"tags":{"k":"a"}},{"metric":"m","timestamp":2,"value":2,"tags":{"k":"a"}}]',
        ),
        AUTO,
      ).points,
    ).toBe(2);
    expect(parseOpenTsdbJson(utf8('[]'), AUTO)).toEqual({ batches: [], points: 0 });
  });

  const rejected: Array<[string, string, string]> = [
    ['', '040011', 'the body is not valid JSON: Unexpected end of JSON input'],
    ['[1]', '040011', 'data point 0: expected an object, found number 1'],
    ['null', '040011', 'data point: expected an object, found null'],
    ['{"timestamp":1,"value":1}', '040011', "data point: 'metric' must be a non-empty string, found nothing"],
    ['{"metric":"m","value":1}', '040011', "data point: 'timestamp' must be an integer, found nothing"],
    [
      '{"metric":"m","timestamp":1.5,"value":1}',
      '040011',
      "data point: 'timestamp' must be an integer, found number 1.5",
    ],
    [
      '[{"metric":"m","timestamp":1,"value":1,"tags":{"k":"a"}},{"metric":"m","timestamp":1}]',
      '040011',
      "data point 1: 'value' must be a number, found nothing",
    ],
    ['{"metric":"m","timestamp":1,"value":1}', '040011', "data point: 'tags' must be an object, found nothing"],
    ['{"metric":"m","timestamp":1,"value":1,"tags":{}}', '040011', "data point: 'tags' must hold at least one tag"],
    ['{"metric":"m","timestamp":1,"value":null}', '040011', "data point: 'value' must be a number, found null"],
    [
      '{"metric":"m","timestamp":1,"value":"abc"}',
      '040011',
      'data point: \'value\' must be a number, found string "abc"',
    ],
    [
      '{"metric":"m","timestamp":1,"value":1,"tags":[]}',
      '040011',
      "data point: 'tags' must be an object, found an array",
    ],
    [
      '{"metric":"m","timestamp":1,"value":1,"tags":{"k":1}}',
      '040011',
      "data point: tag 'k' must have a non-empty string value, found number 1",
    ],
  ];
  for (const [body, code, message] of rejected) {
    it(`rejects ${JSON.stringify(body)}`, () =>
      expect(rejection(() => parseOpenTsdbJson(utf8(body), AUTO))).toEqual([code, message]));
  }
});

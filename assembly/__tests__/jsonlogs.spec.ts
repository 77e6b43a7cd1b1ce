/// <reference types="@as-pect/assembly/types/as-pect" />
// The JSON log scanner's boundary: bad arguments and configurations return -1; a body is taken
// whole (or bails with 1, keeping nothing) and never read past its end, whatever prefix of it is
// scanned. The batches themselves are held to the TypeScript reference byte for byte in
// test/ingest/log-scan.test.ts; the RFC 3339 port is checked here against known instants.
import { json_config, json_input, json_result, json_scan } from '../jsonlogs/index';
import { parsedNs, parseRfc3339 } from '../jsonlogs/rfc3339';

@inline function word(i: usize): u32 {
  return load<u32>(json_result() + (i << 2));
}

/** Writes a configuration (table `logs`, time column `time`, tag `host`, optional action); returns its length. */
function configure(action: string = ''): usize {
  const parts: string[] = ['logs', 'time', action];
  let len: usize = 8 + 4 + 4; // tag count, one tag's length, "host"
  for (let i = 0; i < parts.length; i++) len += 4 + <usize>String.UTF8.byteLength(parts[i]);
  const p = json_config(len + 16);
  let at = p;
  for (let i = 0; i < parts.length; i++) {
    const b = String.UTF8.encode(parts[i]);
    store<u32>(at, b.byteLength);
    memory.copy(at + 4, changetype<usize>(b), b.byteLength);
    at += 4 + b.byteLength;
  }
  store<u32>(at, 1);
  store<u32>(at + 4, 4);
  memory.copy(at + 8, changetype<usize>(String.UTF8.encode('host')), 4);
  return len - 4;
}

function scan(body: string, flags: u32 = 2, action: string = ''): i32 {
  const configLen = configure(action);
  const buf = String.UTF8.encode(body);
  const len = <usize>buf.byteLength;
  const p = json_input(len);
  memory.copy(p, changetype<usize>(buf), len);
  return json_scan(p, len, flags, configLen, 42, 1, 1, 0xffffffff);
}

function ns(text: string): i64 {
  const b = String.UTF8.encode(text);
  expect(parseRfc3339(changetype<usize>(b), <usize>b.byteLength)).toBe(true, text);
  return parsedNs;
}

function refused(text: string): bool {
  const b = String.UTF8.encode(text);
  return !parseRfc3339(changetype<usize>(b), <usize>b.byteLength);
}

describe('json_scan', () => {
  it('rejects arguments outside the window and malformed configurations', () => {
    const c = configure();
    const p = json_input(16);
    expect(json_scan(p - 1, 4, 2, c, 0, 1, 1, 0xffffffff)).toBe(-1);
    expect(json_scan(p, 1 << 30, 2, c, 0, 1, 1, 0xffffffff)).toBe(-1);
    expect(json_scan(p, 4, 8, c, 0, 1, 1, 0xffffffff)).toBe(-1);
    expect(json_scan(p, 4, 2, c - 1, 0, 1, 1, 0xffffffff)).toBe(-1);
    expect(json_scan(p, 4, 2, c, 0, 0, 1, 0xffffffff)).toBe(-1);
    expect(json_scan(p, 4, 2, c, 0, 2, 2, 0xffffffff)).toBe(-1);
  });

  it('takes a whole body: rows, fields, the time or the request time', () => {
    const body = '{"time":5,"host":"a","v":1.5,"s":"x"}\n\n{"v":2,"b":true}\r\n';
    expect(scan(body)).toBe(0);
    expect(word(0)).toBe(<u32>String.UTF8.byteLength(body));
    expect(word(3)).toBe(2);
    expect(word(5)).toBe(0);
  });

  it('bails on every prefix that is not a whole body, and never reads past it', () => {
    const body = '{"time":"2024-01-31T12:00:00Z","host":"a","v":[1,{"w":"\\u00e9"}]}';
    for (let n = 1; n < body.length; n++) {
      const code = scan(body.slice(0, n));
      expect(code == 1 || (code == 0 && word(3) == 0)).toBe(true, body.slice(0, n));
    }
    expect(scan(body)).toBe(0);
    expect(word(3)).toBe(1);
  });

  it('takes bulk pairs whose action line is the configured one, and bails on another', () => {
    const action = '{"create":{}}';
    expect(scan(action + '\n{"v":1}\n' + action + '\n\n{"v":2}\n', 6, action)).toBe(0);
    expect(word(3)).toBe(2);
    expect(scan(action + '\n{"v":1}\n{"index":{}}\n{"v":2}\n', 6, action)).toBe(1);
    expect(scan(action + '\n{"v":1}\n' + action + '\n', 6, action)).toBe(1); // no document
    // Not the last window: the unfinished pair is left for the next call.
    expect(scan(action + '\n{"v":1}\n' + action + '\n', 4, action)).toBe(0);
    expect(word(0)).toBe(<u32>(action.length + 9));
  });
});

describe('RFC 3339 times', () => {
  it('reads the extended format with every separator, fraction and offset', () => {
    expect(ns('1970-01-01')).toBe(0);
    expect(ns('1970-01-01T00:00:01Z')).toBe(1_000_000_000);
    expect(ns('2024-01-31T12:00:00.123456789Z')).toBe(1_706_702_400_123_456_789);
    expect(ns('2024-01-31t12:00:00,1234567899z')).toBe(1_706_702_400_123_456_789);
    expect(ns('2024-01-31 13:00+01:00')).toBe(1_706_702_400_000_000_000);
    expect(ns('2024-01-31T04:00:00-0800')).toBe(1_706_702_400_000_000_000);
    expect(ns('2024-01-31T14:00:00+02')).toBe(1_706_702_400_000_000_000);
    expect(ns('2000-02-29T00:00:00Z')).toBe(951_782_400_000_000_000);
    expect(ns('1969-12-31T23:59:59.5Z')).toBe(-500_000_000);
    expect(ns('1677-09-21T00:12:43.145224192Z')).toBe(i64.MIN_VALUE);
    expect(ns('2262-04-11T23:47:16.854775807Z')).toBe(i64.MAX_VALUE);
  });

  it('leaves everything else to the reference', () => {
    expect(refused('2024-01-31T12:00:00.Z')).toBe(true);
    expect(refused('2023-02-29')).toBe(true);
    expect(refused('2024-01-31T24:00')).toBe(true);
    expect(refused('2024-01-31T12:60')).toBe(true);
    expect(refused('2024-01-31T12:00:60Z')).toBe(true);
    expect(refused('2024-01-31T12:00+24:00')).toBe(true);
    expect(refused('2024-01-31T12')).toBe(true);
    expect(refused('20240131T120000Z')).toBe(true);
    expect(refused('2024-1-31')).toBe(true);
    expect(refused('2024-01-31X')).toBe(true);
    expect(refused('1677-09-21T00:12:43.145224191Z')).toBe(true);
    expect(refused('2262-04-11T23:47:16.854775808Z')).toBe(true);
  });
});

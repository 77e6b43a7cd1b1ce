// decodeMessage's interning reader (used for Prometheus remote write) must decode exactly what
// protobufjs decodes on its own: short ASCII strings from its cache, anything else (long, not
// ASCII, empty, truncated) through protobufjs, with the same values and the same refusals.

import { describe, expect, it } from 'vitest';
import { UserError } from '../../host/core/errors.js';
import { PROM_TYPES } from '../../host/ingest/prometheus-remote.js';
import { decodeMessage } from '../../host/ingest/protobuf-values.js';
import { rng } from './ingest-support.js';

const VALUES = [
  '',
  'cpu_usage_user',
  'host_0',
  'host_1',
  'us-west-1',
  'é',
  'naïve',
  '😀',
  'x'.repeat(64),
  'y'.repeat(65),
  'z'.repeat(300),
];

function request(random: () => number, series: number): Uint8Array {
  const timeseries = [];
  for (let s = 0; s < series; s++) {
    const labels = [];
    for (let l = 0; l < 1 + Math.floor(random() * 5); l++) {
      const pick = (): string =>
        random() < 0.2 ? `v${Math.floor(random() * 1e6)}` : VALUES[Math.floor(random() * VALUES.length)]!;
      labels.push({ name: pick() || 'n', value: pick() });
    }
    timeseries.push({ labels, samples: [{ value: random(), timestamp: Math.floor(random() * 1e12) }] });
  }
  return PROM_TYPES.WriteRequest.encode(PROM_TYPES.WriteRequest.fromObject({ timeseries })).finish();
}

/** The plain decode, as a plain object; or the refusal's message. */
function plain(bytes: Uint8Array): unknown {
  try {
    return PROM_TYPES.WriteRequest.toObject(PROM_TYPES.WriteRequest.decode(bytes));
  } catch (e) {
    return `refused: ${(e as Error).message}`;
  }
}

function interned(bytes: Uint8Array): unknown {
  try {
    return PROM_TYPES.WriteRequest.toObject(
      decodeMessage(PROM_TYPES.WriteRequest, bytes, 'a Prometheus WriteRequest', true),
    );
  } catch (e) {
    expect(e).toBeInstanceOf(UserError);
    return `refused: ${(e as Error).message.replace('cannot decode the body as a Prometheus WriteRequest: ', '')}`;
  }
}

describe('decodeMessage with interning', () => {
  it('decodes Buffers and plain Uint8Arrays, whole or cut anywhere, as protobufjs does', () => {
    const random = rng(Number(process.env.PROTOBUF_SEED ?? 20261126));
    for (let run = 0; run < 200; run++) {
      const bytes = request(random, 1 + Math.floor(random() * 20));
      const cut = random() < 0.5 ? bytes : bytes.subarray(0, Math.floor(random() * bytes.length));
      expect(interned(Buffer.from(cut))).toEqual(plain(Buffer.from(cut)));
      expect(interned(new Uint8Array(cut))).toEqual(plain(new Uint8Array(cut)));
    }
  });

  it('tells apart two strings of one length and one hash (the cache checks the bytes)', () => {
    // A collision of the cache's 32-bit FNV-1a hash, found by brute force.
    const [a, b] = ['y5ju39kl8d', '70tkp0dr2r'];
    const bytes = PROM_TYPES.WriteRequest.encode(
      PROM_TYPES.WriteRequest.fromObject({
        timeseries: [
          { labels: [{ name: 'k', value: a }] },
          { labels: [{ name: 'k', value: b }] },
          { labels: [{ name: 'k', value: a }] },
        ],
      }),
    ).finish();
    expect(interned(Buffer.from(bytes))).toEqual(plain(Buffer.from(bytes)));
    const values = (
      plain(Buffer.from(bytes)) as { timeseries: Array<{ labels: Array<{ value: string }> }> }
    ).timeseries.map((t) => t.labels[0]!.value);
    expect(values).toEqual([a, b, a]);
  });

  it('decodes a repeated short label from its cache', () => {
    const bytes = PROM_TYPES.WriteRequest.encode(
      PROM_TYPES.WriteRequest.fromObject({
        timeseries: [{ labels: [{ name: 'job', value: 'node' }] }, { labels: [{ name: 'job', value: 'node' }] }],
      }),
    ).finish();
    const req = decodeMessage<{ timeseries: Array<{ labels: Array<{ name: string; value: string }> }> }>(
      PROM_TYPES.WriteRequest,
      Buffer.from(bytes),
      'x',
      true,
    );
    expect(req.timeseries.map((t) => t.labels[0])).toEqual([
      { name: 'job', value: 'node' },
      { name: 'job', value: 'node' },
    ]);
  });
});

// The sandbox answers "last point per series" from its catalog's lastPoints (as the server's
// storage does) and forgets what it kept once rows are written: a newer row is the next answer.

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { Sandbox } from '../../host/sandbox/sandbox.js';

const WASM = readFileSync(new URL('../../build/sundial.wasm', import.meta.url));
// One tag: PARTITION BY every tag is one series per partition, which lastPoints answers.
const LAST =
  'SELECT hostname, time, usage_user FROM (SELECT *, row_number() OVER (PARTITION BY hostname ORDER BY time DESC) AS rn FROM cpu) WHERE rn = 1 ORDER BY hostname';
const lp = (lines: string[]): Uint8Array => new TextEncoder().encode(lines.join('\n'));

describe('last points in the sandbox', () => {
  it('answers from the newest rows and sees rows written after', async () => {
    const sandbox = await Sandbox.create(WASM);
    const rows: string[] = [];
    for (let i = 0; i < 360; i++)
      for (const h of [0, 1])
        rows.push(
          `cpu,hostname=host_${h} usage_user=${(i * 7 + h) % 100}i,usage_idle=${i}i ${1451606400000000000n + BigInt(i) * 10_000_000_000n}`,
        );
    sandbox.writeLineProtocol(lp(rows));
    const before = JSON.parse((await sandbox.sql(LAST)).json) as Array<{ hostname: string; time: string }>;
    expect(before.map((r) => [r.hostname, r.time])).toEqual([
      ['host_0', '2016-01-01T00:59:50'],
      ['host_1', '2016-01-01T00:59:50'],
    ]);
    expect(JSON.parse((await sandbox.sql(LAST)).json)).toEqual(before);
    sandbox.writeLineProtocol(lp(['cpu,hostname=host_1 usage_user=7i 1451610000000000000']));
    const after = JSON.parse((await sandbox.sql(LAST)).json) as Array<{
      hostname: string;
      time: string;
      usage_user: number;
    }>;
    expect(after[0]).toEqual(before[0]);
    expect(after[1]).toEqual({ hostname: 'host_1', time: '2016-01-01T01:00:00', usage_user: 7 });
  });
});

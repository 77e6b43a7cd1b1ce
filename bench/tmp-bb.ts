import { WriteBatchBuilder } from '../host/core/write-batch-builder.js';
import { ReferenceWriteBatchBuilder } from '../test/ingest/reference-batch-builder.js';
import { ValueType } from '../host/core/write-batch.js';
const tagsFor = (h: number): Array<[string, string]> => [['arch', 'x64'], ['datacenter', 'us-east-1a'], ['hostname', `host_${h}`], ['os', 'Ubuntu16.10'], ['rack', String(h % 100)], ['region', 'us-east-1'], ['service', String(h % 20)], ['service_environment', 'production'], ['service_version', '1'], ['team', 'NYC']];
for (const [name, B] of [['fast', WriteBatchBuilder]] as const) {
  for (let rep = 0; rep < 3; rep++) {
    const N = 100000;
    const rows = Array.from({ length: N }, (_, i) => tagsFor(i % 100).map(([k, v]) => [k, v] as [string, string]));
    const b = new B();
    const t0 = performance.now();
    for (let i = 0; i < N; i++) b.addRow('cpu.usage_' + (i % 10), rows[i]!, BigInt(i), [{ name: 'value', type: ValueType.Double, value: i }]);
    const t1 = performance.now();
    b.finish();
    const t2 = performance.now();
    console.log(name, `add ${Math.round(N / (t1 - t0) * 1000)}/s finish ${Math.round(N / (t2 - t1) * 1000)}/s`);
  }
}

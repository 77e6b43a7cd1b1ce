// What a DDL costs when the catalog is in etcd (server.cluster, docs/cluster.md) rather than in
// catalog.json: sequential CREATE TABLEs on a single node, on one node of a cluster, and on one of
// two nodes (the other adopting each change), in alternating rounds (the machine is shared).
// Run: npm run build && node --import tsx bench/cluster-ddl.ts [--tables 200] [--rounds 3]

import { parseArgs } from 'node:util';
import { startEtcd } from '../test/support/etcd.js';
import { http } from '../test/support/http.js';
import { startServer, type TestServer } from '../test/support/server.js';

const { values } = parseArgs({ options: { tables: { type: 'string' }, rounds: { type: 'string' } } });
const TABLES = Number(values.tables ?? 200);
const ROUNDS = Number(values.rounds ?? 3);
const QUIET = {
  SUNDIAL_WARMUP: 'false',
  SUNDIAL_WRITE_WARMUP: 'false',
  SUNDIAL_PARSE_WARMUP: 'false',
  SUNDIAL_REPORT_INTERVAL: '0',
};

async function createTables(server: TestServer, db: string): Promise<number> {
  const sql = async (text: string, database = 'public'): Promise<void> => {
    const r = await http(server.url, `/api/v1/sql?db=${database}`, { method: 'POST', body: text });
    if (r.status !== 200) throw new Error(`${text}: ${r.status} ${r.text}`);
  };
  await sql(`CREATE DATABASE ${db}`);
  const started = performance.now();
  for (let i = 0; i < TABLES; i++) await sql(`CREATE TABLE t${i} (v DOUBLE, TAGS(host))`, db);
  return (performance.now() - started) / TABLES;
}

const etcd = await startEtcd();
const results: Record<string, number[]> = { single: [], cluster1: [], cluster2: [] };
try {
  for (let round = 0; round < ROUNDS; round++) {
    const single = await startServer({ inProcess: true, env: QUIET });
    results.single!.push(await createTables(single, `r${round}`));
    await single.stop();
    single.cleanup();
    const env = (cluster: string, node: string): Record<string, string> => ({
      ...QUIET,
      SUNDIAL_ETCD_ENDPOINTS: etcd.endpoint,
      SUNDIAL_NAME: cluster,
      SUNDIAL_NODE_ID: node,
    });
    const one = await startServer({ inProcess: true, env: env(`one${round}`, 'a') });
    results.cluster1!.push(await createTables(one, `r${round}`));
    await one.stop();
    one.cleanup();
    const pair = [
      await startServer({ inProcess: true, env: env(`two${round}`, 'a') }),
      await startServer({ inProcess: true, env: env(`two${round}`, 'b') }),
    ];
    results.cluster2!.push(await createTables(pair[0]!, `r${round}`));
    for (const s of pair) {
      await s.stop();
      s.cleanup();
    }
  }
} finally {
  await etcd.close();
}
for (const [name, ms] of Object.entries(results))
  console.log(`${name.padEnd(9)} ms per CREATE TABLE by round: ${ms.map((m) => m.toFixed(2)).join(' ')}`);

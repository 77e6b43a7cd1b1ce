// Child process of ddl-kill.test.ts: runs DDL and writes against a data directory through the
// storage API, prints "done" once every step was acknowledged, then waits to be killed -9.

import { ValueType } from '../../host/core/write-batch.js';
import { storageCodecs } from '../../host/storage/segment/codecs.js';
import { Storage } from '../../host/storage/storage.js';
import { loadCore } from '../support/core.js';
import { recordingLogger } from '../support/logger.js';
import { batch, dbl, int, str } from './support.js';

const dir = process.argv[2]!;
const { logger } = recordingLogger();
const s = await Storage.open({
  dataDir: dir,
  logger,
  codecs: storageCodecs(await loadCore()),
  rootPasswordHash: 'unused',
  memtableBytes: 64 << 20,
  walSegmentBytes: 1 << 20,
  walSync: true,
  maintenanceIntervalMs: 0,
});
await s.recover();
const db = () => s.catalog.requireDatabase('cnosdb', 'public');

await s.write(db(), [
  batch([
    ['m', [['t0', 'a']], 1n, [dbl('x', 1.5), int('y', 7n), int('f0', 10n)]],
    ['gone', [], 1n, [dbl('v', 1)]],
  ]),
]);
await s.flushAll(); // part of the old data in a file, part in the WAL
await s.write(db(), [
  batch([
    ['m', [['t0', 'b']], 2n, [dbl('x', 2.5), int('y', 8n), int('f0', 20n)]],
    ['gone', [], 2n, [dbl('v', 2)]],
  ]),
]);
await s.alterTable(db(), 'm', { kind: 'dropColumn', name: 'y' });
await s.alterTable(db(), 'm', { kind: 'addField', name: 'y', type: ValueType.String });
await s.alterTable(db(), 'm', { kind: 'renameColumn', from: 'f0', to: 'f9' });
await s.alterTable(db(), 'm', { kind: 'renameColumn', from: 't0', to: 't9' });
await s.dropTable(db(), 'gone');
await s.createTable(db(), { name: 'gone', tags: [], fields: [{ name: 'v', type: ValueType.BigInt }] });
await s.write(db(), [
  batch([
    ['m', [['t9', 'a']], 3n, [dbl('x', 3.5), str('y', 'new'), int('f9', 30n)]],
    ['gone', [], 3n, [int('v', 3n)]],
  ]),
]);
await s.delete(db(), 'm', { minTime: 2n, maxTime: 2n });
await s.write(db(), [batch([['fresh', [['h', 'q']], 4n, [int('n', 4n)]]])]); // its catalog save is not awaited
process.stdout.write('done\n');
setInterval(() => undefined, 1000);

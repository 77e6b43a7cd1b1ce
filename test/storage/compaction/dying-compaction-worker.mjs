// A compaction thread for test/storage/compaction/compactor.test.ts that starts, says it is ready,
// and dies at its first job, as a thread would on an out-of-memory or a native fault.
import { parentPort } from 'node:worker_threads';

parentPort.postMessage({ ready: true });
parentPort.on('message', () => process.exit(3));

// The write-ahead log in NATS JetStream (docs/cluster.md): the shared connection, the log of one
// database, the split of a write by vnode.

export { refuseFileWal } from './file-wal-check.js';
export { JetStreamLink, type JetStreamLinkOptions } from './jetstream-link.js';
export { JetStreamWal, streamName, vnodeSubject } from './jetstream-wal.js';
export { deleteOrphanStream } from './orphan-streams.js';
export { splitByVnode, vnodeOf } from './vnode-split.js';

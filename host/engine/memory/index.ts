// The query memory budget: the pool a statement's operators reserve from, and the sizes they
// charge (measured on V8). Other folders import it from here.
export { MemoryPool } from './memory-pool.js';
export { ShardedMap, ShardedSet } from './sharded-map.js';
export {
  HASH_ENTRY_BYTES,
  MAP_BYTES,
  OBJECT_BYTES,
  Reservation,
  SET_BYTES,
  SLOT_BYTES,
  batchBytes,
  listBytes,
  scalarBytes,
  stringBytes,
  stringUnitsBytes,
  vectorBytes,
} from './memory-size.js';

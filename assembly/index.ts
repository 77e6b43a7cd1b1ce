// The exported ABI of the Sundial core, documented function by function in assembly/README.md.
export { alloc, free } from './memory';
export * from './lineprotocol/index';
export * from './codecs/index';
export * from './kernels/index';
export * from './opentsdb/index';
export * from './jsonlogs/index';

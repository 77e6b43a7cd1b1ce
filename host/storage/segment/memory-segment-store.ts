// A segment store in memory, every operation durable at once (no crash to survive): for a browser
// sandbox, and for tests that run the storage over a second store (test/storage/random-ops.test.ts).

import { MemoryFileTree, writeChunks } from '../fs/memory-files.js';
import type { SegmentFileReader, SegmentFileWriter, SegmentStore } from './segment-store.js';

export class MemorySegmentStore extends MemoryFileTree implements SegmentStore {
  async openRead(path: string): Promise<SegmentFileReader> {
    const f = this.file(path, 'open');
    // The bytes as they are now: a file renamed into place is never written again, and a
    // removed one stays readable through this reader.
    const bytes = f.bytes.subarray(0, f.length);
    return {
      size: bytes.length,
      read: async (position, length) => {
        if (position + length > bytes.length) {
          const got = Math.max(0, bytes.length - position);
          throw new Error(`file ends after ${position + got} bytes, ${length - got} more wanted`);
        }
        return bytes.slice(position, position + length);
      },
      close: async () => undefined,
    };
  }

  async create(path: string): Promise<SegmentFileWriter> {
    const f = this.newFile(path);
    return {
      write: async (chunks, position) => writeChunks(f, chunks, position),
      sync: async () => undefined,
      close: async () => undefined,
    };
  }

  async readText(path: string): Promise<string | undefined> {
    const f = this.fileOrUndefined(path);
    return f === undefined ? undefined : new TextDecoder().decode(f.bytes.subarray(0, f.length));
  }

  async rename(from: string, to: string): Promise<void> {
    this.moveFile(from, to);
  }
}

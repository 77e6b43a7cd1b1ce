// One file of a location read into a batch by its format: what COPY INTO a table and an external
// table's scan share. The file's bytes are charged to the query's memory pool while they are
// parsed, and the batch's for as long as the caller holds the reservation. An unchanged file read
// again comes from the files' cache (file-cache.ts), charged the same.

import type { ExternalTableInfo } from '../catalog.js';
import type { MemoryPool } from '../memory/index.js';
import { batchBytes, Reservation } from '../memory/index.js';
import type { Field, RecordBatch } from '../types/index.js';
import { readCsv } from './csv-reader.js';
import type { ExternalFile, ExternalFiles } from './external-files.js';
import type { FileFormat } from './file-format.js';
import { readJson } from './json-reader.js';
import { readParquet } from './parquet-reader.js';

/** The reading options of an external table's files. */
export function externalFormat(t: Pick<ExternalTableInfo, 'fileType' | 'hasHeader' | 'delimiter'>): FileFormat {
  return { type: t.fileType, delimiter: t.delimiter, withHeader: t.hasHeader };
}

/**
 * The rows of `file` as `schema`'s columns (or the file's own when undefined). `held` grows by the
 * batch's size and stays so; the file's bytes are held only while parsing (twice: text and cells).
 */
export async function readExternalFile(
  files: ExternalFiles,
  file: ExternalFile,
  format: FileFormat,
  schema: readonly Field[] | undefined,
  memory: MemoryPool,
  held: Reservation,
): Promise<RecordBatch> {
  const cache = files.cache;
  const key = cache?.key(file, format, schema);
  const cached = key === undefined ? undefined : cache!.get(key);
  if (cached !== undefined) {
    held.grow(batchBytes(cached));
    return cached;
  }
  const parsing = new Reservation(memory, `reading ${file.name}`);
  try {
    // Charged before the read, from the size the listing saw: a file past the limit is never loaded.
    parsing.grow(file.sizeBytes * (format.type === 'PARQUET' ? 2 : 3));
    const bytes = await files.read(file);
    let batch: RecordBatch;
    switch (format.type) {
      case 'CSV':
        batch = readCsv(bytes, format.delimiter, format.withHeader, schema);
        break;
      case 'JSON':
        batch = readJson(bytes, schema);
        break;
      case 'PARQUET':
        batch = await readParquet(bytes, schema);
        break;
    }
    held.grow(batchBytes(batch));
    if (key !== undefined) cache!.set(key, batch);
    return batch;
  } finally {
    parsing.release();
  }
}

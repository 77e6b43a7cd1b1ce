// Encoding ids, the first byte of every column block, and the encoder modes that CnosDB's
// CODEC(...) names map to. Both reach disk or the host, so both are append-only (STYLE.md §7);
// the layouts behind each id are in host/storage/FORMAT.md §4.

/** Every row is NULL; nothing follows. Any type. */
export const ENC_ALL_NULL: u8 = 1;
/** Validity (a BOOLEAN block) followed by the block of the present values. Any type. */
export const ENC_NULLABLE: u8 = 2;
/** A zstd frame of an inner block; written and removed by the host (zstd does not run in Wasm). */
export const ENC_ZSTD: u8 = 3;
/** Values as they are: 8 bytes each (i64, u64, f64 bits), or varint lengths and bytes (STRING). */
export const ENC_PLAIN: u8 = 4;
/** One value repeated for every row. */
export const ENC_CONST: u8 = 5;
/** Integers with one constant difference (regular timestamps): first value and the step. */
export const ENC_DELTA_CONST: u8 = 6;
/** Zigzag deltas packed with Simple-8b. */
export const ENC_DELTA_SIMPLE8B: u8 = 7;
/** Zigzag deltas as (value, run length) pairs. */
export const ENC_DELTA_RLE: u8 = 8;
/** Zigzag deltas as Rice codes (unary high part, k-bit low part, escapes). */
export const ENC_DELTA_RICE: u8 = 9;
/** Zigzag deltas of deltas packed with Simple-8b. */
export const ENC_DOD_SIMPLE8B: u8 = 10;
export const ENC_DOD_RLE: u8 = 11;
export const ENC_DOD_RICE: u8 = 12;
/** DOUBLE: Gorilla XOR bit stream. */
export const ENC_GORILLA: u8 = 13;
/** DOUBLE: short decimals as scaled integers (an integer block) plus exceptions. */
export const ENC_DECIMAL: u8 = 14;
/** BOOLEAN: one bit per row. */
export const ENC_BITPACK: u8 = 15;
/** BOOLEAN: alternating run lengths. */
export const ENC_BOOL_RLE: u8 = 16;
/** STRING: a dictionary of distinct values and an integer block of indexes. */
export const ENC_DICT: u8 = 17;

// Encoder modes (the `mode` argument of the encode exports).
/** DEFAULT, QUANTILE: the smallest encoding the codec family has for this block. */
export const MODE_AUTO: u32 = 0;
/** NULL: no compression (PLAIN; BITPACK for BOOLEAN). */
export const MODE_PLAIN: u32 = 1;
/** DELTA: integers as deltas only (constant blocks still become CONST). */
export const MODE_DELTA: u32 = 2;
/** DELTATS: integers as deltas of deltas only. */
export const MODE_DOD: u32 = 3;
/** GORILLA: doubles as XOR only. */
export const MODE_GORILLA: u32 = 4;
/** BITPACK: booleans one bit per row. */
export const MODE_BITPACK: u32 = 5;
export const MODE_LAST: u32 = 5;

/** Rows per block the exports accept (the format has no limit; this bounds scratch memory to ~100 MiB). */
export const MAX_ROWS: u32 = 1 << 20;

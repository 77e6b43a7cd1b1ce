// Byte classes of the line-protocol grammar: each scanning loop stops on one table lookup
// (`load<u8>(CLASS + c) & K_X`) instead of a chain of compares. Built once at instantiation.

/** Ends a measurement: `,` space `\n`, and `\` (an escape to handle). */
export const K_MEASUREMENT: u8 = 1;
/** Ends a tag key or a field key: `,` space `=` `\n` `\`. */
export const K_KEY: u8 = 2;
/** Ends a tag value: `,` space `\n` `\`. */
export const K_TAG_VALUE: u8 = 4;
/** Ends a number, boolean or timestamp token: `,` space tab `\r` `\n`. */
export const K_DELIMITER: u8 = 8;
/** Stops the scan of a quoted string: `"` `\` `\n`. */
export const K_STRING: u8 = 16;
/** Stops the raw scan for the end of measurement and tags: space `\` `\n`. */
export const K_PREFIX: u8 = 32;
/** Must be escaped in a canonical series key: `\` `,` `=` space (FORMAT.md §1). */
export const K_KEY_ESCAPE: u8 = 64;
/** Makes a column name unsafe for raw comparison with the input: `\` `,` `=` space `\n`. */
export const K_NOT_PLAIN: u8 = 128;

export const CLASS: usize = memory.data(256);

function mark(c: u32, k: u8): void {
  store<u8>(CLASS + c, load<u8>(CLASS + c) | k);
}

mark(0x2c /* , */, K_MEASUREMENT | K_KEY | K_TAG_VALUE | K_DELIMITER | K_KEY_ESCAPE | K_NOT_PLAIN);
mark(0x20 /* space */, K_MEASUREMENT | K_KEY | K_TAG_VALUE | K_DELIMITER | K_PREFIX | K_KEY_ESCAPE | K_NOT_PLAIN);
mark(0x0a /* \n */, K_MEASUREMENT | K_KEY | K_TAG_VALUE | K_DELIMITER | K_STRING | K_PREFIX | K_NOT_PLAIN);
mark(0x5c /* \ */, K_MEASUREMENT | K_KEY | K_TAG_VALUE | K_STRING | K_PREFIX | K_KEY_ESCAPE | K_NOT_PLAIN);
mark(0x3d /* = */, K_KEY | K_KEY_ESCAPE | K_NOT_PLAIN);
mark(0x09 /* tab */, K_DELIMITER);
mark(0x0d /* \r */, K_DELIMITER);
mark(0x22 /* " */, K_STRING);

@inline export function hasClass(c: u32, k: u8): bool {
  return (load<u8>(CLASS + c) & k) != 0;
}

@inline export function isDigit(c: u32): bool {
  return c - 0x30 < 10;
}

export const CH_TAB: u32 = 0x09;
export const CH_LF: u32 = 0x0a;
export const CH_CR: u32 = 0x0d;
export const CH_SPACE: u32 = 0x20;
export const CH_QUOTE: u32 = 0x22;
export const CH_HASH: u32 = 0x23;
export const CH_APOSTROPHE: u32 = 0x27;
export const CH_PLUS: u32 = 0x2b;
export const CH_COMMA: u32 = 0x2c;
export const CH_MINUS: u32 = 0x2d;
export const CH_DOT: u32 = 0x2e;
export const CH_EQUALS: u32 = 0x3d;
export const CH_BACKSLASH: u32 = 0x5c;

// The errors of CnosDB's regular expressions in Rust's words (rust-regex.ts compiles them):
// regex-syntax's text, the pattern with carets under the span (line numbers for a pattern of
// several lines), and regex::Error's Debug form that arrow's kernels print. RE2JS's own errors,
// for what the translation passes on, are mapped to the Rust message of the same mistake.

/** A pattern Rust's regex crate would refuse, or that RE2 cannot run, in Rust's words. */
export class RegexError extends Error {
  override readonly name = 'RegexError';
  /** regex::Error's Debug form, which arrow's kernels print ("Regular expression did not compile: {e:?}"). */
  readonly debug: string;

  constructor(display: string, debug: string) {
    super(display);
    this.debug = debug;
  }
}

/** Code points of s[from, to). */
function columnsBetween(s: string, from: number, to: number): number {
  let n = 0;
  for (let i = from; i < to; i++) {
    const c = s.charCodeAt(i);
    if (c < 0xdc00 || c > 0xdfff) n++;
  }
  return n;
}

/** Line (1-based) and column (1-based, in characters) of a UTF-16 offset, as regex-syntax counts them. */
function position(s: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset; i++) {
    if (s.charCodeAt(i) === 10) {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: columnsBetween(s, lineStart, offset) + 1 };
}

/** regex-syntax's error text: the pattern with carets under [start, end), then the message. */
export function syntaxError(pattern: string, start: number, end: number, message: string): RegexError {
  const from = position(pattern, start);
  const to = position(pattern, Math.max(start, end));
  // Rust's str::lines(): no last empty line after a final \n, a \r before \n dropped.
  const lines = pattern.split('\n').map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l));
  if (pattern.endsWith('\n')) lines.pop();
  const lineCount = lines.length + (pattern.endsWith('\n') ? 1 : 0);
  const width = lineCount <= 1 ? 0 : String(lineCount).length;
  const padding = width === 0 ? 4 : 2 + width;
  let notated = '';
  lines.forEach((line, k) => {
    notated += (width > 0 ? `${String(k + 1).padStart(width)}: ` : '    ') + line + '\n';
    if (from.line === to.line && from.line === k + 1)
      notated += ' '.repeat(padding + from.column - 1) + '^'.repeat(Math.max(1, to.column - from.column)) + '\n';
  });
  let text: string;
  if (pattern.includes('\n')) {
    const divider = '~'.repeat(79);
    const spanNote =
      from.line === to.line
        ? ''
        : `on line ${from.line} (column ${from.column}) through line ${to.line} (column ${to.column - 1})\n`;
    text = `regex parse error:\n${divider}\n${notated}${divider}\n${spanNote}error: ${message}`;
  } else {
    text = `regex parse error:\n${notated}error: ${message}`;
  }
  const divider = '~'.repeat(79);
  return new RegexError(text, `Syntax(\n${divider}\n${text}\n${divider}\n)`);
}

export function tooBig(what: string): RegexError {
  const text = `Compiled regex exceeds size limit: ${what}`;
  return new RegexError(text, `CompiledTooBig(${what})`);
}

/** RE2's error texts to Rust's, keyed by RE2's description. */
export function fromRe2(pattern: string, error: string, input: string | null): RegexError {
  const found = input === null || input === '' ? -1 : pattern.indexOf(input);
  const [start, end] = found < 0 ? [0, pattern.length] : [found, found + input!.length];
  let message: string;
  if (error.startsWith('invalid repeat count')) {
    const m = /\{(\d+)(?:,(\d*))?\}/.exec(input ?? '');
    const min = m === null ? 0 : Number(m[1]);
    const max = m === null || m[2] === undefined || m[2] === '' ? min : Number(m[2]);
    if (min > max) message = 'invalid repetition count range, the start must be <= the end';
    else if (max > 1000) message = 'repetition counts above 1000 are not supported by this engine';
    else message = 'nested repetitions whose counts multiply past 1000 are not supported by this engine';
  } else if (error.startsWith('missing argument to repetition operator'))
    message = 'repetition operator missing expression';
  else if (error.startsWith('invalid nested repetition operator'))
    message = 'a repetition of a repetition (such as a**) is not supported by this engine';
  else if (error.startsWith('invalid character class range'))
    message =
      input?.startsWith('\\p') || input?.startsWith('\\P')
        ? 'invalid Unicode character class'
        : 'invalid character class range, the start must be <= the end';
  else if (error.startsWith('invalid escape sequence')) message = 'unrecognized escape sequence';
  else if (error.startsWith('invalid named capture')) message = 'invalid capture group character';
  else if (error.startsWith('invalid or unsupported Perl syntax')) message = 'unrecognized flag';
  else if (error.startsWith('missing closing )')) message = 'unclosed group';
  else if (error.startsWith('unexpected )')) message = 'unopened group';
  else if (error.startsWith('missing closing ]')) message = 'unclosed character class';
  else message = error;
  return syntaxError(pattern, start, end, message);
}

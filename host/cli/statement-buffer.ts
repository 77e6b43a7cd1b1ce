// The shell's input as a person types it: lines gather until a `;` outside strings, comments and
// parentheses ends a statement (as psql does), so a statement may span lines and a line may hold
// several; what follows the last `;` stays for the next line.

import { statementsOf } from '../node/index.js';
import { tokenizePg } from '../pgwire/index.js';

export class StatementBuffer {
  #text = '';

  /** Whether a statement has begun and not ended (the continuation prompt). */
  get pending(): boolean {
    return tokenizePg(this.#text).length > 0;
  }

  clear(): void {
    this.#text = '';
  }

  /** Adds a line; returns the statements it completed, in order (none while the statement goes on). */
  add(line: string): string[] {
    this.#text = this.#text === '' ? line : `${this.#text}\n${line}`;
    const tokens = tokenizePg(this.#text);
    let depth = 0;
    let end = -1;
    for (const t of tokens) {
      if (t.kind !== 'op') continue;
      if (t.value === '(') depth++;
      else if (t.value === ')') depth = Math.max(0, depth - 1);
      else if (t.value === ';' && depth === 0) end = t.end;
    }
    if (end < 0) return [];
    const done = this.#text.slice(0, end);
    const rest = this.#text.slice(end);
    this.#text = tokenizePg(rest).length === 0 ? '' : rest.replace(/^\s+/, '');
    return statementsOf(done).filter((s) => s !== '');
  }
}

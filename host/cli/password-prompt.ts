// Reads a password from the terminal without echoing it (psql's prompt): the terminal in raw
// mode, so that nothing typed is shown, with backspace and Ctrl-U editing; Ctrl-C or Ctrl-D on
// an empty answer gives up.

/** The terminal's input as the prompt needs it (process.stdin on a TTY). */
export interface TerminalInput extends NodeJS.ReadableStream {
  setRawMode(mode: boolean): unknown;
}

/** Prompts on `output` and resolves with what was typed up to Enter; undefined when the user gave up. */
export function promptPassword(
  prompt: string,
  input: TerminalInput,
  output: NodeJS.WritableStream,
): Promise<string | undefined> {
  output.write(prompt);
  input.setRawMode(true);
  input.setEncoding('utf8');
  input.resume();
  let value = '';
  return new Promise((resolve) => {
    const finish = (answer: string | undefined): void => {
      input.off('data', onData);
      input.setRawMode(false);
      input.pause();
      output.write('\n');
      resolve(answer);
    };
    const onData = (text: string): void => {
      for (const ch of text) {
        if (ch === '\r' || ch === '\n') return finish(value);
        if (ch === '\x03' || (ch === '\x04' && value === '')) return finish(undefined);
        if (ch === '\x7f' || ch === '\b') value = [...value].slice(0, -1).join('');
        else if (ch === '\x15') value = '';
        else if (ch >= ' ') value += ch;
      }
    };
    input.on('data', onData);
  });
}

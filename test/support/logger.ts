// A pino logger that records its lines, for asserting what storage code reported.
import { pino, type Logger } from 'pino';
import { Writable } from 'node:stream';

export function recordingLogger(): { logger: Logger; lines: Array<Record<string, unknown>> } {
  const lines: Array<Record<string, unknown>> = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, cb) {
      for (const l of chunk.toString().split('\n')) if (l) lines.push(JSON.parse(l) as Record<string, unknown>);
      cb();
    },
  });
  return { logger: pino({ level: 'debug' }, sink), lines };
}

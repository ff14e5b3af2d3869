/**
 * The REPL's logs: one short human line each (`[12:04:05] ERROR: actor crashed: database is
 * locked`) instead of the server's JSON lines, written above the prompt, which is then drawn again
 * with what was being typed.
 */
import { clearLine, cursorTo } from 'node:readline';
import { Writable } from 'node:stream';
import { PinoPretty } from 'pino-pretty';

export interface LogLines {
  /** The stream to give the logger. */
  readonly stream: NodeJS.WritableStream;
  /** Called after each line once a prompt is open: it draws the prompt again (none before). */
  redraw: (() => void) | undefined;
}

/** The message, and for an error its cause: the first line of the error's own message. */
const withCause = (log: Record<string, unknown>, messageKey: string): string => {
  const err = log['err'] as { message?: unknown } | undefined;
  const cause = typeof err?.message === 'string' ? err.message.split('\n')[0] : undefined;
  return `${String(log[messageKey] ?? '')}${cause ? `: ${cause}` : ''}`;
};

/** Log lines for a session whose prompt is on `prompt` (stdout) and whose logs go to `output` (stderr). */
export function replLogLines(
  output: NodeJS.WritableStream,
  prompt: NodeJS.WritableStream,
  terminal: boolean,
): LogLines {
  const lines: LogLines = {
    stream: PinoPretty({
      destination: new Writable({
        write(chunk: Buffer, _encoding, done) {
          const redraw = terminal ? lines.redraw : undefined;
          if (redraw) {
            cursorTo(prompt, 0);
            clearLine(prompt, 0);
          }
          output.write(chunk);
          redraw?.();
          done();
        },
      }),
      sync: true,
      colorize: false,
      hideObject: true,
      ignore: 'pid,hostname',
      translateTime: 'HH:MM:ss',
      messageFormat: withCause,
    }),
    redraw: undefined,
  };
  return lines;
}

/**
 * One secret line for a command (`npm run hash`): at a terminal, after a prompt on `prompt`
 * (stderr, so that stdout carries only the result), read with nothing echoed: readline puts the
 * terminal in raw mode and its own echo is discarded. From a pipe or a file, the first line as it
 * is, with no prompt.
 */
import { createInterface } from 'node:readline';
import { Writable } from 'node:stream';

/** Ctrl-C at the prompt: the caller ends the command (exit 130, as a shell does). */
export class PromptCancelled extends Error {
  override readonly name = 'PromptCancelled';
}

export interface SecretStreams {
  /** Where the secret is read; a terminal when `isTTY` is true. */
  readonly input: NodeJS.ReadableStream & { readonly isTTY?: boolean };
  /** Where the prompt is written (at a terminal only). */
  readonly prompt: NodeJS.WritableStream;
}

const discard = (): Writable =>
  new Writable({
    write(_chunk, _encoding, done) {
      done();
    },
  });

/** The first line of `input`: typed unseen after `text` at a terminal, or piped. Empty at end of input. */
export async function readSecret(
  text: string,
  { input, prompt }: SecretStreams = { input: process.stdin, prompt: process.stderr },
): Promise<string> {
  if (input.isTTY !== true) {
    for await (const line of createInterface({ input })) return line;
    return '';
  }
  const rl = createInterface({ input, output: discard(), terminal: true });
  prompt.write(text);
  return new Promise((resolve, reject) => {
    let settled = false;
    const settle = (finish: () => void): void => {
      if (settled) return;
      settled = true;
      rl.close(); // leaves raw mode: the terminal echoes again
      prompt.write('\n'); // the Enter typed was not echoed either
      finish();
    };
    rl.on('line', (line) => settle(() => resolve(line)));
    rl.on('SIGINT', () => settle(() => reject(new PromptCancelled('cancelled at the prompt'))));
    rl.on('close', () => settle(() => resolve('')));
  });
}

/** A stream to write to in a test (a logger's destination, a prompt's output), and all written to it so far. */
import { PassThrough } from 'node:stream';

export function capture(): { stream: PassThrough; text: () => string } {
  const stream = new PassThrough();
  let text = '';
  stream.on('data', (chunk: Buffer) => {
    text += chunk.toString();
  });
  return { stream, text: () => text };
}

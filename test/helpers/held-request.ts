/** A request held in flight at an exact moment: the server has begun it and waits for the rest of its body. */
import { once } from 'node:events';
import { get, type Agent, type IncomingHttpHeaders } from 'node:http';
import { connect } from 'node:net';
import { basic, USERS } from './tokens.ts';

export interface HeldRequest {
  /** Sends the rest of the body; resolves with the whole answer as received (status line, headers, body). */
  finish(): Promise<string>;
  /**
   * After {@link HeldRequest.finish}: a GET of `path` on the same connection; resolves with all that
   * arrives until the server closes it, or with the socket's error code.
   */
  again(path: string): Promise<string>;
}

/** Whether `received` holds a whole answer: its head and as much body as its Content-Length says. */
function complete(received: string): boolean {
  const split = received.indexOf('\r\n\r\n');
  if (split < 0) return false;
  const length = /\r\ncontent-length: *(\d+)\r\n/i.exec(received.slice(0, split + 2))?.[1];
  return length !== undefined && Buffer.byteLength(received.slice(split + 4)) >= Number(length);
}

/**
 * A password login (POST /oauth/token) sent with `Expect: 100-continue` and half its body: the
 * server's `100 Continue` says it has read the headers and begun the request (Node answers it as
 * it emits `request`), which then waits for the other half.
 */
export async function holdLogin(url: string): Promise<HeldRequest> {
  const { hostname, port } = new URL(url);
  const body = new URLSearchParams({ grant_type: 'password', ...USERS.john }).toString();
  const half = Math.floor(body.length / 2);
  const socket = connect(Number(port), hostname);
  await once(socket, 'connect');
  let received = '';
  let continued: () => void = () => {};
  const begun = new Promise<void>((resolve) => (continued = resolve));
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => {
    received += chunk;
    if (received.startsWith('HTTP/1.1 100 Continue\r\n\r\n')) continued();
  });
  let answered: () => void = () => {};
  const answer = new Promise<void>((resolve) => (answered = resolve));
  const ended = once(socket, 'end').then(
    () => '',
    (error: NodeJS.ErrnoException) => error.code ?? error.message,
  );
  socket.on('data', () => {
    if (complete(received.replace('HTTP/1.1 100 Continue\r\n\r\n', ''))) answered();
  });
  socket.write(
    [
      'POST /oauth/token HTTP/1.1',
      `Host: ${hostname}:${port}`,
      `Authorization: ${basic()}`,
      'Content-Type: application/x-www-form-urlencoded',
      `Content-Length: ${body.length}`,
      'Expect: 100-continue',
      '',
      body.slice(0, half),
    ].join('\r\n'),
  );
  await begun;
  return {
    async finish() {
      socket.write(body.slice(half));
      // The answer is whole when its body is, or when the server closes the connection after it.
      await Promise.race([answer, ended]);
      return received.replace('HTTP/1.1 100 Continue\r\n\r\n', '');
    },
    async again(path) {
      const before = received.length;
      socket.write(`GET ${path} HTTP/1.1\r\nHost: ${hostname}:${port}\r\n\r\n`);
      const failure = await ended;
      return failure === '' ? received.slice(before) : failure;
    },
  };
}

export interface Answer {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

/** One GET (a new connection unless an agent is given); the answer, or the code of a connection that failed. */
export function answerTo(url: string, agent: Agent | false = false): Promise<Answer | string> {
  return new Promise((resolve) => {
    get(url, { agent }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      res.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? 'error'));
    }).on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? 'error'));
  });
}

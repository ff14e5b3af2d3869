/** HTTP/1.1 over a plain socket: the request target and headers go out byte for byte, as written. */
import { connect } from 'node:net';

export interface RawResponse {
  readonly status: number;
  /** The status line and the header lines. */
  readonly head: string;
  readonly body: string;
}

export interface RawRequest {
  readonly method?: string;
  /** Sent as written: origin form (`/a/b`), absolute form (`http://host/a/b`), anything. */
  readonly target: string;
  readonly headers?: readonly string[];
  readonly body?: string;
  readonly timeoutMs?: number;
}

/** Sends one request on a new connection (`Connection: close`) and reads the whole answer. */
export function rawRequest(url: string, req: RawRequest): Promise<RawResponse> {
  const { hostname, port } = new URL(url);
  const body = req.body ?? '';
  const lines = [
    `${req.method ?? 'GET'} ${req.target} HTTP/1.1`,
    `Host: ${hostname}:${port}`,
    'Connection: close',
    ...(req.headers ?? []),
  ];
  if (body !== '') lines.push(`Content-Length: ${Buffer.byteLength(body)}`);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.end(`${lines.join('\r\n')}\r\n\r\n${body}`));
    socket.setTimeout(req.timeoutMs ?? 10_000, () =>
      socket.destroy(new Error(`no answer to ${req.method ?? 'GET'} ${req.target}`)),
    );
    const chunks: Buffer[] = [];
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const split = text.indexOf('\r\n\r\n');
      const head = split < 0 ? text : text.slice(0, split);
      resolve({ status: Number(head.split(' ')[1]), head, body: split < 0 ? '' : text.slice(split + 4) });
    });
    socket.on('error', reject);
  });
}

/** A client application's redirect target on loopback: answers every request with a small page. */
import { createServer, type Server } from 'node:http';

export interface RedirectTarget {
  /** `http://127.0.0.1:PORT/callback` */
  readonly callback: string;
  close(): Promise<void>;
}

export async function startRedirectTarget(): Promise<RedirectTarget> {
  const server: Server = createServer((_req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
    res.end('<!doctype html><title>Back at the application</title><p id="landed">Back at the application</p>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    callback: `http://127.0.0.1:${port}/callback`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

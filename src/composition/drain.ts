/**
 * The drain of the HTTP servers on SIGTERM/SIGINT. Closing a listener at once resets every
 * connection the kernel had queued for it and not yet handed over: under load, clients see
 * ECONNRESET. So the listener stays open a while: every request that arrives is answered 503 with
 * `Retry-After` and `Connection: close` (the routes do it, asking {@link Drain.draining}); the
 * requests begun before are let finish, their connections closed after their answers; then idle
 * kept-alive connections are closed with the listener, and any connection still open when the
 * bound runs out is cut.
 */
import { once } from 'node:events';
import type { RequestListener, Server, ServerResponse } from 'node:http';

export interface DrainBounds {
  /** How long the listeners stay open at least, answering 503 (`server.drain-window-ms`). */
  readonly windowMs: number;
  /** How long the whole drain may take (`server.shutdown-timeout-ms`); the window is cut to it. */
  readonly timeoutMs: number;
}

export interface Drain {
  /** Whether the drain has begun: a request from then on is answered 503. */
  readonly draining: () => boolean;
  /** `handler` with its requests counted: the drain waits for those begun before it. */
  track(handler: RequestListener): RequestListener;
  /** Drains `servers` and closes them; resolves once each listener and connection is closed. */
  close(servers: readonly Server[], bounds: DrainBounds): Promise<void>;
}

/** A timer that can be waited for and cleared (a drain that ends early leaves none behind). */
function timer(ms: number): { readonly done: Promise<void>; clear(): void } {
  let handle: NodeJS.Timeout | undefined;
  const done = new Promise<void>((resolve) => (handle = setTimeout(resolve, ms)));
  return { done, clear: () => clearTimeout(handle) };
}

const keepNoConnection = (res: ServerResponse): void => {
  if (!res.headersSent) res.setHeader('Connection', 'close');
};

export function createDrain(): Drain {
  let draining = false;
  /** The responses of the requests begun before the drain, not yet closed. */
  const inFlight = new Set<ServerResponse>();
  let settle: (() => void) | undefined;
  const settled = new Promise<void>((resolve) => (settle = resolve));
  const checkSettled = (): void => {
    if (draining && inFlight.size === 0) settle?.();
  };

  return {
    draining: () => draining,
    track(handler) {
      return (req, res) => {
        if (draining) keepNoConnection(res);
        else {
          inFlight.add(res);
          res.once('close', () => {
            inFlight.delete(res);
            checkSettled();
          });
        }
        handler(req, res);
      };
    },
    async close(servers, { windowMs, timeoutMs }) {
      draining = true;
      // An answer still to be written closes its connection: the client does not send on it again.
      for (const res of inFlight) keepNoConnection(res);
      checkSettled();
      const deadline = timer(timeoutMs);
      const window = timer(Math.min(windowMs, timeoutMs));
      await Promise.race([Promise.all([window.done, settled]), deadline.done]);
      window.clear();
      const closed = Promise.all(servers.map((server) => once(server, 'close')));
      for (const server of servers) {
        server.close();
        server.closeIdleConnections();
      }
      // What is still open when the bound runs out is cut.
      void deadline.done.then(() => {
        for (const server of servers) server.closeAllConnections();
      });
      await closed;
      deadline.clear();
    },
  };
}

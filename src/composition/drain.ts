/**
 * The drain of the HTTP servers on SIGTERM/SIGINT, in an order that resets no connection. A client
 * sees a reset when a connection the kernel accepted is closed with its request unanswered: one
 * still queued when the listener closes, or one Node calls idle because its request, already on
 * the wire, has not been read yet (`server.close()` and `closeIdleConnections()` close those). So:
 *
 * 1. From the signal, every request that begins, on a new connection or a kept-alive one, is
 *    answered 503 with `Retry-After` and `Connection: close` (the routes do it, asking
 *    {@link Drain.draining}), and that answer closes its connection. A client told so sends
 *    nothing more here until `Retry-After` has passed.
 * 2. A request begun before the signal finishes with its own answer, and its connection is kept:
 *    the client's next request, on it, gets the 503. Were that connection closed after the answer,
 *    the client would open another at once, just as the listener may be closing.
 * 3. The listener closes (and only it: no connection is closed with it) once
 *    `server.drain-window-ms` has passed and the requests begun before have been answered; earlier
 *    once every connection open at the signal has closed if no new one has come since: nothing is
 *    under way and no one is sending, so an idle stop does not wait for the window.
 * 4. A connection is closed by the server only after an answer with `Connection: close`, or once it
 *    has stayed idle (no request begun on it) for a whole window, from the signal, its opening or
 *    its last answer, whichever is last, and the listener is closed: until then a request may be
 *    on its way.
 * 5. At `server.shutdown-timeout-ms` from the signal, whatever is still open is cut.
 *
 * Timers run before the event loop reads its sockets: when a window runs out, the listener and an
 * idle connection are closed only after one more read of what has already arrived, so a busy
 * server does not close on a connection or a request that came in time. With `server.workers`
 * above 1 each worker drains its own connections this way; the port's listener, shared, closes
 * with the last worker's.
 */
import { once } from 'node:events';
import type { RequestListener, Server, ServerResponse } from 'node:http';
import { Server as NetServer, type Socket } from 'node:net';

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
  /** Counts `server`'s connections from now on: the drain closes each only when it may. */
  watch(server: Server): void;
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

/** An open connection: how many requests on it are not answered yet; whether it has been idle a whole window. */
interface Connection {
  readonly server: Watched;
  active: number;
  idle: NodeJS.Timeout | undefined;
  /** The window has run out: the connection expires after what has arrived meanwhile is read. */
  expiring: NodeJS.Immediate | undefined;
  expired: boolean;
}

/** A server's open connections; whether one came in the drain, whether its listener is closed. */
interface Watched {
  readonly connections: Set<Socket>;
  arrived: boolean;
  listening: boolean;
  /** Resolved once every connection open at the signal has closed with none come since. */
  readonly quiet: Signal;
}

/** A promise resolved from outside, once. */
interface Signal {
  readonly promise: Promise<void>;
  readonly resolve: () => void;
}

function signal(): Signal {
  let resolve: () => void = () => {};
  const promise = new Promise<void>((done) => (resolve = done));
  return { promise, resolve };
}

export function createDrain(): Drain {
  let draining = false;
  let idleMs = 0;
  const watchedServers = new Map<Server, Watched>();
  const connections = new Map<Socket, Connection>();
  /**
   * How many requests begun before the drain are not answered yet. A count, not a set of their
   * responses: a long-lived collection holding each response costs every request ≈8 CPU µs in the
   * collector (docs/benchmarks.md, "What the drain costs a request").
   */
  let inFlight = 0;
  const settled = signal();
  const checkSettled = (): void => {
    if (draining && inFlight === 0) settled.resolve();
  };
  const checkQuiet = (watched: Watched): void => {
    if (draining && !watched.arrived && watched.connections.size === 0) watched.quiet.resolve();
  };
  /** Closes a connection that has stayed idle a whole window, once its listener is closed too. */
  const closeIfExpired = (socket: Socket, connection: Connection): void => {
    if (connection.expired && connection.active === 0 && !connection.server.listening) socket.destroy();
  };
  /** In a drain, an idle connection's window starts (again): from the signal, its opening or its last answer. */
  const boundIdle = (socket: Socket, connection: Connection): void => {
    clearTimeout(connection.idle);
    clearImmediate(connection.expiring);
    connection.idle = undefined;
    connection.expiring = undefined;
    connection.expired = false;
    if (!draining || connection.active > 0 || socket.destroyed) return;
    connection.idle = setTimeout(() => {
      // Timers run before the loop reads its sockets: a request that came in time but is not read
      // yet (the loop was busy) is read first, and begins, before the connection expires.
      connection.expiring = setImmediate(() => {
        connection.expired = true;
        closeIfExpired(socket, connection);
      });
    }, idleMs);
  };

  return {
    draining: () => draining,
    track(handler) {
      return (req, res) => {
        const socket = req.socket;
        const connection = connections.get(socket);
        const counted = !draining;
        if (connection) {
          connection.active++;
          if (draining) boundIdle(socket, connection);
        }
        if (counted) inFlight++;
        else keepNoConnection(res);
        res.once('close', () => {
          if (connection) {
            connection.active--;
            if (draining) boundIdle(socket, connection);
          }
          if (counted) {
            inFlight--;
            checkSettled();
          }
        });
        handler(req, res);
      };
    },
    watch(server) {
      const watched: Watched = { connections: new Set(), arrived: false, listening: true, quiet: signal() };
      watchedServers.set(server, watched);
      server.on('connection', (socket: Socket) => {
        if (draining) watched.arrived = true;
        const connection: Connection = {
          server: watched,
          active: 0,
          idle: undefined,
          expiring: undefined,
          expired: false,
        };
        connections.set(socket, connection);
        watched.connections.add(socket);
        socket.once('close', () => {
          clearTimeout(connection.idle);
          clearImmediate(connection.expiring);
          connections.delete(socket);
          watched.connections.delete(socket);
          checkQuiet(watched);
        });
        boundIdle(socket, connection);
      });
    },
    async close(servers, { windowMs, timeoutMs }) {
      draining = true;
      idleMs = Math.min(windowMs, timeoutMs);
      for (const [socket, connection] of connections) boundIdle(socket, connection);
      for (const watched of watchedServers.values()) checkQuiet(watched);
      checkSettled();
      const deadline = timer(timeoutMs);
      const window = timer(idleMs);
      const drained = Promise.all([window.done, settled.promise]);
      const closeOne = async (server: Server): Promise<void> => {
        const watched = watchedServers.get(server);
        await Promise.race([drained, deadline.done, ...(watched ? [watched.quiet.promise] : [])]);
        // As for an idle connection: the connections that came in time and are not accepted yet
        // (the loop was busy) are accepted first, rather than reset with the listener.
        await new Promise((resolve) => setImmediate(resolve));
        const closed = once(server, 'close');
        // The listener alone: `server.close()` would also close the connections Node calls idle,
        // among them any whose request has arrived and not been read yet.
        NetServer.prototype.close.call(server);
        if (watched) {
          watched.listening = false;
          for (const socket of watched.connections) {
            const connection = connections.get(socket);
            if (connection) closeIfExpired(socket, connection);
          }
        }
        await closed;
        // Nothing is left open: now `server.close()` only ends Node's periodic check of the
        // connections' timeouts, which would otherwise keep the server from being collected.
        server.close();
      };
      // What is still open when the bound runs out is cut.
      void deadline.done.then(() => {
        for (const server of servers) server.closeAllConnections();
      });
      await Promise.all(servers.map(closeOne));
      window.clear();
      deadline.clear();
    },
  };
}

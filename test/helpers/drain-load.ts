/**
 * Load through a shutdown: clients on kept-alive connections send password logins and employee
 * reads without pause, each outcome counted. A connection that fails under a request is a reset
 * (ECONNRESET, "socket hang up", EPIPE): what a drain must never cause. A refused connection is not:
 * the listener is closed and the client goes elsewhere, as it does after a 503 for `Retry-After`.
 */
import { Agent, request, type IncomingMessage } from 'node:http';
import { basic, USERS } from './tokens.ts';

export interface Tally {
  /** Answered with a status other than 503. */
  answered: number;
  /** 503 (`Retry-After`, `Connection: close`). */
  unavailable: number;
  /** ECONNREFUSED: the listener was closed. */
  refused: number;
  /** The connection failed under the request. */
  reset: number;
  /** A 503 without `Retry-After: 1` and `Connection: close`, or an answer that never came. */
  wrong: number;
  /** What each failure was (code and request), for the message of a failed test. */
  readonly failures: string[];
}

export interface Load {
  /** Resolves once every client has stopped: each has been refused (the listener is closed). */
  readonly done: Promise<Tally>;
  /** Resolves once every client has been answered at least `n` times. */
  warmedUp(n: number): Promise<void>;
  readonly tally: Tally;
}

type Outcome = { readonly status: number; readonly retryAfter: string | undefined; readonly close: boolean } | string;

/** No answer within this long counts as wrong: a connection accepted and then forgotten. */
const ANSWER_BOUND_MS = 15_000;

function send(
  url: URL,
  agent: Agent,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string,
): Promise<Outcome> {
  return new Promise((resolve) => {
    const req = request(
      { host: url.hostname, port: url.port, method, path, agent, headers, timeout: ANSWER_BOUND_MS },
      (res: IncomingMessage) => {
        res.resume();
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            retryAfter: res.headers['retry-after'],
            close: res.headers.connection === 'close',
          }),
        );
        res.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
      },
    );
    req.on('timeout', () => req.destroy(Object.assign(new Error('no answer'), { code: 'TIMEOUT' })));
    req.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
    req.end(body);
  });
}

const RESETS = new Set(['ECONNRESET', 'EPIPE', 'ECONNABORTED']);

export interface LoadOptions {
  readonly clients: number;
  /** An access token that may read employees, and the employee read. */
  readonly token: string;
  readonly employeeId: string;
  /** Resolves once the server's process has exited: no use waiting longer to be refused. */
  readonly gone: Promise<unknown>;
}

/**
 * `clients` clients against `base`, each on one kept-alive connection of its own, alternating a
 * password login and a read of employee `employeeId` with `token`. After a 503 a client waits for
 * its `Retry-After` (or until the process is gone) before it sends here again; a refused
 * connection ends it.
 */
export function loadThrough(base: string, { clients, token, employeeId, gone }: LoadOptions): Load {
  const url = new URL(base);
  const tally: Tally = { answered: 0, unavailable: 0, refused: 0, reset: 0, wrong: 0, failures: [] };
  const answeredBy = new Array<number>(clients).fill(0);
  const login = new URLSearchParams({ grant_type: 'password', ...USERS.john }).toString();
  const loginHeaders = {
    Authorization: basic(),
    'Content-Type': 'application/x-www-form-urlencoded',
    'Content-Length': String(login.length),
  };
  const readHeaders = { Authorization: `Bearer ${token}` };
  const waiters: (() => void)[] = [];
  const client = async (i: number): Promise<void> => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      for (let n = 0; ; n++) {
        const what = n % 2 === 0 ? 'POST /oauth/token' : `GET /api/employee/${employeeId}`;
        const outcome =
          n % 2 === 0
            ? await send(url, agent, 'POST', '/oauth/token', loginHeaders, login)
            : await send(url, agent, 'GET', `/api/employee/${employeeId}`, readHeaders);
        if (typeof outcome === 'string') {
          if (outcome === 'ECONNREFUSED') {
            tally.refused++;
            return;
          }
          if (RESETS.has(outcome)) tally.reset++;
          else tally.wrong++;
          tally.failures.push(`${outcome} on ${what}`);
        } else if (outcome.status === 503) {
          tally.unavailable++;
          if (outcome.retryAfter !== '1' || !outcome.close) {
            tally.wrong++;
            tally.failures.push(`503 without Retry-After: 1 and Connection: close on ${what}`);
          }
          // As an HTTP client does: nothing more to this server until Retry-After has passed.
          let wait: NodeJS.Timeout | undefined;
          await Promise.race([
            gone,
            new Promise((resolve) => (wait = setTimeout(resolve, Number(outcome.retryAfter ?? '1') * 1000))),
          ]);
          clearTimeout(wait);
        } else {
          tally.answered++;
          answeredBy[i] = (answeredBy[i] ?? 0) + 1;
          for (const wake of waiters.splice(0)) wake();
        }
      }
    } finally {
      agent.destroy();
    }
  };
  const done = Promise.all(Array.from({ length: clients }, (_, i) => client(i))).then(() => tally);
  return {
    done,
    tally,
    async warmedUp(n) {
      while (answeredBy.some((count) => count < n)) await new Promise<void>((resolve) => waiters.push(resolve));
    },
  };
}

// `node scripts/healthcheck.ts`, the container image's HEALTHCHECK: exit 0 when the server configured
// as `npm start` would be (the same environment and properties file) answers 200 on /health, on the
// management port when one is set, else on the main port; exit 1 otherwise, with one line on stderr
// saying why. A wildcard listen address is reached on loopback.
import { configFromProcess, orExit } from '../src/config.ts';

const TIMEOUT_MS = 3000;

function loopbackFor(host: string): string {
  if (host === '0.0.0.0') return '127.0.0.1';
  if (host === '::') return '[::1]';
  return host.includes(':') ? `[${host}]` : host;
}

/** Why a request failed, as its cause names it (`ECONNREFUSED`, a timeout), never more. */
function reason(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause: unknown = error.cause;
  if (cause instanceof Error) return (cause as NodeJS.ErrnoException).code ?? cause.message;
  return error.name === 'TimeoutError' ? `no answer within ${TIMEOUT_MS} ms` : error.message;
}

const { server, management } = await orExit(() => configFromProcess(process.env));
const target = management.port === undefined ? server : management;
const url = `http://${loopbackFor(target.host)}:${target.port}/health`;
const answer = await fetch(url, { signal: AbortSignal.timeout(TIMEOUT_MS) }).catch((error: unknown) => {
  process.stderr.write(`${url}: ${reason(error)}\n`);
  process.exit(1);
});
if (!answer.ok) {
  process.stderr.write(`${url}: ${answer.status}\n`);
  process.exit(1);
}

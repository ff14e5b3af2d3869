// Runs one autocannon measurement in its own process, so the load generator never shares a core's
// event loop with the bench or the server. Input: a JSON spec as argv[2]. Output: one JSON line.
import { readFileSync } from 'node:fs';
import autocannon from 'autocannon';

const spec = JSON.parse(process.argv[2] ?? '{}');

/** Requests whose path or body comes from a file, one per line, each used in turn. */
function request() {
  const base = { method: spec.method ?? 'GET', path: spec.path ?? '/', headers: spec.headers ?? {}, body: spec.body };
  if (!spec.linesFile) return base;
  const lines = readFileSync(spec.linesFile, 'utf8')
    .split('\n')
    .filter((l) => l !== '');
  let next = 0;
  return { ...base, setupRequest: (req) => ({ ...req, [spec.linesAs ?? 'path']: lines[next++ % lines.length] }) };
}

const result = await autocannon({
  url: spec.url,
  connections: spec.connections ?? 10,
  duration: spec.duration ?? 5,
  ...(spec.amount ? { amount: spec.amount } : {}),
  ...(spec.sampleMs ? { sampleInt: spec.sampleMs } : {}),
  ...(spec.overallRate ? { overallRate: spec.overallRate } : {}),
  idReplacement: spec.idReplacement ?? false,
  requests: [request()],
});

process.stdout.write(
  `${JSON.stringify({
    total: result.requests.total,
    seconds: result.duration,
    ok: result['2xx'],
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    p50: result.latency.p50,
    p99: result.latency.p99,
    statusCodes: result.statusCodeStats,
  })}\n`,
);

/**
 * Scenario 12: what tracing costs on `GET /app/listAll`. Off (no OTEL_* environment, as `npm
 * start` runs by default) against a build without any tracing code (the tree before tracing was
 * added, run from a temporary export with this tree's node_modules), and on with every request
 * sampled and exported over OTLP/protobuf to a collector on loopback that discards what it gets.
 */
import { execFileSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, symlinkSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { login } from '../helpers/tokens.ts';
import { startTroupe, tempDir, HEAP_ARGS } from './harness.ts';
import type { Report } from './report.ts';
import { interleaved, row, type BenchSettings, type Target } from './scenarios-security.ts';

const git = (...args: string[]): string => execFileSync('git', args, { encoding: 'utf8' }).trim();

/** The tree just before tracing was added (or `BENCH_UNTRACED_REF`), exported to a temporary directory. */
function untracedTree(): { root: string; ref: string } {
  const added = git('log', '--diff-filter=A', '--format=%H', '-1', '--', 'src/telemetry/register.ts');
  const ref = process.env['BENCH_UNTRACED_REF'] ?? `${added}^`;
  const root = join(tempDir('untraced'), 'tree');
  mkdirSync(root);
  execFileSync('sh', ['-c', `git archive "${ref}" | tar -x -C "${root}"`]);
  symlinkSync(resolve('node_modules'), join(root, 'node_modules'));
  return { root, ref: git('rev-parse', '--short', ref) };
}

/** An OTLP/HTTP collector on loopback that reads and drops every export. */
async function discardingCollector() {
  let exports = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      exports++;
      res.writeHead(200, { 'Content-Type': 'application/x-protobuf' }).end();
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, exports: () => exports, server };
}

export async function tracing(report: Report, s: BenchSettings): Promise<void> {
  const dir = tempDir('tracing');
  const untraced = untracedTree();
  const collector = await discardingCollector();
  const off = await startTroupe(dir);
  const without = await startTroupe(dir, {}, { root: untraced.root, nodeArgs: HEAP_ARGS });
  const on = await startTroupe(dir, {
    OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
    OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf',
    OTEL_TRACES_SAMPLER: 'always_on',
    OTEL_SERVICE_NAME: 'troupe-bench',
  });
  try {
    // Each server is its own issuer (its URL): a token for each.
    const headers = async (url: string) => ({ Authorization: `Bearer ${(await login(url)).access_token}` });
    const targets: Target[] = [
      { name: 'tracing off', child: off, headers: await headers(off.url) },
      { name: `build without tracing (${untraced.ref})`, child: without, headers: await headers(without.url) },
      { name: 'tracing on, 100 % sampled', child: on, headers: await headers(on.url) },
    ];
    s.log('GET /app/listAll: tracing off vs a build without tracing vs tracing on (100 % sampled, OTLP)');
    const best = await interleaved(targets, s, 3);
    const get = (t: Target) => {
      const found = best.get(t.name);
      if (!found) throw new Error(`no measurement of ${t.name}`);
      return found;
    };
    const [a, b, c] = targets as [Target, Target, Target];
    report.measurements.push(
      row(
        'GET /app/listAll, tracing off (no OTEL_* set)',
        get(a).r,
        get(a).rss,
        `${get(a).cpuUs.toFixed(1)} CPU µs/request`,
      ),
      row(
        `GET /app/listAll, build without tracing (${untraced.ref})`,
        get(b).r,
        get(b).rss,
        `baseline of claim 13; ${get(b).cpuUs.toFixed(1)} CPU µs/request`,
      ),
      row(
        'GET /app/listAll, tracing on, 100 % sampled, OTLP/protobuf',
        get(c).r,
        get(c).rss,
        `${get(c).cpuUs.toFixed(1)} CPU µs/request; ${collector.exports()} exports received`,
      ),
    );
    report.claims.push(
      {
        claim: '13. listAll, tracing off / a build without tracing',
        ratio: get(a).r.rps / get(b).r.rps,
        op: '>=',
        bound: 0.98,
        meaning: 'what the tracing hooks cost while no SDK is started',
      },
      {
        claim: '13b. CPU per listAll request, a build without tracing / tracing off',
        ratio: get(b).cpuUs / get(a).cpuUs,
        op: '>=',
        bound: 0.98,
        meaning: 'the same, as server CPU time per request (less disturbed by other work on the machine)',
      },
      {
        claim: '14. listAll, tracing on (100 % sampled) / tracing off',
        ratio: get(c).r.rps / get(a).r.rps,
        op: 'info',
        bound: 0,
        meaning: 'what tracing every request costs: spans for the request, the actor hop, and their OTLP export',
      },
    );
  } finally {
    await Promise.all([off.stop(), without.stop(), on.stop()]);
    collector.server.close();
  }
}

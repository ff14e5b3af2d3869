/**
 * Claims 1 and 10's requests on this tree and on another checkout of the project, one data
 * directory, interleaved rounds: what a change of the code costs per request, read as server CPU
 * µs per request (which a busy machine disturbs far less than req/s).
 *
 *   git worktree add /tmp/base <ref> && ln -s "$PWD/node_modules" /tmp/base/node_modules
 *   BENCH_BASE_ROOT=/tmp/base node test/bench/compare-trees.ts
 *
 * BENCH_SECONDS (default 5) is the length of each measurement, BENCH_COMPARE_ROUNDS (default 4)
 * the rounds.
 */
import { login } from '../helpers/tokens.ts';
import { interleaved, startTroupe, tempDir, type Child } from './harness.ts';
import { seedEmployees } from './seed.ts';

const base = process.env['BENCH_BASE_ROOT'];
if (!base) throw new Error('BENCH_BASE_ROOT must name another checkout of the project (with node_modules)');
const seconds = Number(process.env['BENCH_SECONDS'] ?? 5);
const rounds = Number(process.env['BENCH_COMPARE_ROUNDS'] ?? 4);

const dir = tempDir('compare');
seedEmployees(dir, 1000);
const servers: { key: 'base' | 'this'; child: Child; token: string }[] = [];
try {
  for (const [key, root] of [
    ['base', base],
    ['this', undefined],
  ] as const) {
    const child = await startTroupe(dir, {}, root === undefined ? {} : { root });
    servers.push({ key, child, token: (await login(child.url)).access_token });
  }
  const [first] = servers;
  if (!first) throw new Error('no server');
  const search = await fetch(`${first.child.url}/api/employee/search`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${first.token}`, 'Content-Type': 'application/json' },
    body: '{"limit":1}',
  });
  const id = ((await search.json()) as { items: { id: string }[] }).items[0]?.id;
  for (const [what, path] of [
    ['GET /app/listAll (claim 1)', '/app/listAll'],
    ['GET /api/employee/:id (claim 10)', `/api/employee/${id}`],
  ] as const) {
    console.log(`${what}, bearer token: ${base} against this tree`);
    const best = await interleaved(
      servers.map((s) => ({
        key: s.key,
        label: `  ${s.key}`,
        child: s.child,
        spec: {
          url: s.child.url,
          path,
          headers: { Authorization: `Bearer ${s.token}` },
          connections: 10,
          duration: seconds,
        },
      })),
      rounds,
      console.log,
    );
    const figures = (key: 'base' | 'this') => {
      const b = best.get(key);
      return `${b?.r.rps.toFixed(0)} req/s, ${b?.cpuUs.toFixed(1)} CPU µs/request`;
    };
    console.log(`${what}: base ${figures('base')}; this tree ${figures('this')}`);
  }
} finally {
  for (const s of servers) await s.child.stop();
}

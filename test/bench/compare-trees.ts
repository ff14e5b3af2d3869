/**
 * Claims 1, 10 and 18's requests on this tree and on another checkout of the project, one data
 * directory (with claim 18's client and a fixed HS256 key), interleaved rounds: what a change of the code costs per request, read as server CPU
 * µs per request (which a busy machine disturbs far less than req/s).
 *
 *   git worktree add /tmp/base <ref> && ln -s "$PWD/node_modules" /tmp/base/node_modules
 *   BENCH_BASE_ROOT=/tmp/base node test/bench/compare-trees.ts
 *
 * BENCH_SECONDS (default 5) is the length of each measurement, BENCH_COMPARE_ROUNDS (default 4)
 * the rounds; BENCH_COMPARE_ONLY (a regular expression) keeps the requests whose label matches it.
 */
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { basic, login } from '../helpers/tokens.ts';
import { interleaved, startTroupe, tempDir, type Child, type LoadSpec } from './harness.ts';
import { MACHINE_CLIENT, machineClientRegistration } from './scenarios-machine.ts';
import { seedEmployees } from './seed.ts';

const base = process.env['BENCH_BASE_ROOT'];
if (!base) throw new Error('BENCH_BASE_ROOT must name another checkout of the project (with node_modules)');
const seconds = Number(process.env['BENCH_SECONDS'] ?? 5);
const rounds = Number(process.env['BENCH_COMPARE_ROUNDS'] ?? 4);
const only = new RegExp(process.env['BENCH_COMPARE_ONLY'] ?? '');

const dir = tempDir('compare');
seedEmployees(dir, 1000);
const clientsFile = join(dir, 'clients.json');
writeFileSync(clientsFile, JSON.stringify([machineClientRegistration()]));
const settings = {
  SECURITY_CLIENTS_FILE: clientsFile,
  SECURITY_SIGNING_KEY: randomBytes(48).toString('base64url'),
};
const servers: { key: 'base' | 'this'; child: Child; token: string }[] = [];
try {
  for (const [key, root] of [
    ['base', base],
    ['this', undefined],
  ] as const) {
    const child = await startTroupe(dir, settings, root === undefined ? {} : { root });
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
  const machineForm = {
    Authorization: basic(MACHINE_CLIENT.id, MACHINE_CLIENT.secret),
    'Content-Type': 'application/x-www-form-urlencoded',
  };
  type Request = Pick<LoadSpec, 'path' | 'method' | 'headers' | 'body'>;
  const requests = (token: string): [string, Request][] => [
    ['GET /app/listAll (claim 1)', { path: '/app/listAll', headers: { Authorization: `Bearer ${token}` } }],
    [
      'GET /api/employee/:id (claim 10)',
      { path: `/api/employee/${id}`, headers: { Authorization: `Bearer ${token}` } },
    ],
    [
      'POST /oauth/token, client_credentials (claim 18)',
      { path: '/oauth/token', method: 'POST', headers: machineForm, body: 'grant_type=client_credentials' },
    ],
  ];
  for (const [n, [what]] of requests('').entries()) {
    if (!only.test(what)) continue;
    console.log(`${what}: ${base} against this tree`);
    const best = await interleaved(
      servers.map((s) => ({
        key: s.key,
        label: `  ${s.key}`,
        child: s.child,
        spec: { url: s.child.url, path: '/', ...requests(s.token)[n]?.[1], connections: 10, duration: seconds },
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

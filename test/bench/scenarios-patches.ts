/**
 * Scenario 17: what each change to nact's behaviour (`src/messaging/nact-patches.ts`) buys, in
 * one run. Servers on one data directory differ by the patches they run with (chosen by
 * `nact-patches.ts`, imported before the server's first module) and answer claim 10's request (`GET /api/employee/:id` with a bearer token) in
 * interleaved rounds; one context per actor is also measured where nact's per-message context
 * costs most, on `GET /api/users/activity` with the activity router holding a thousand live
 * children. A change that does not save 5 % of the server's CPU per request on a request has no
 * place in the code.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { login } from '../helpers/tokens.ts';
import {
  interleaved,
  load,
  START_ARGS,
  startTroupe,
  tempDir,
  type BestRound,
  type Child,
  type LoadSpec,
} from './harness.ts';
import type { Report } from './report.ts';
import { row, type BenchSettings } from './scenarios-security.ts';
import { seedEmployees, seedUsers } from './seed.ts';

/** Node's arguments that start a server with `patches` only (`undefined`: every one, as `npm start`). */
const nodeArgs = (patches?: string): readonly string[] =>
  patches === undefined ? START_ARGS : ['--import', `./test/bench/nact-patches.ts?patches=${patches}`, ...START_ARGS];

/** One server per variant: every change, or every change but one. */
const VARIANTS = [
  { key: 'all', label: 'every change', patches: undefined },
  { key: 'one-context', label: 'without one context per actor', patches: 'messages-per-turn' },
  {
    key: 'messages-per-turn',
    label: 'without messages per turn (nor one context, which lives in its loop)',
    patches: '',
  },
] as const;
type Key = (typeof VARIANTS)[number]['key'];

/** Users whose ActivityActors are live under the router while its request is measured (its `max-live` default). */
const CHILDREN = 1000;

interface Server {
  readonly key: Key;
  readonly label: string;
  readonly child: Child;
  readonly token: string;
}

export async function patches(report: Report, s: BenchSettings, rounds = 2): Promise<void> {
  const dir = tempDir('patches');
  seedEmployees(dir, 1000);
  const users = seedUsers(dir, CHILDREN);
  const paths = join(dir, 'activity-paths.txt');
  writeFileSync(paths, users.map((id) => `/api/users/activity?userId=${id}&limit=1`).join('\n'));
  const servers: Server[] = [];
  try {
    for (const v of VARIANTS) {
      const child = await startTroupe(dir, { ACTORS_ACTIVITY_IDLE_MS: '3600000' }, { nodeArgs: nodeArgs(v.patches) });
      servers.push({ key: v.key, label: v.label, child, token: (await login(child.url)).access_token });
    }
    const first = servers[0];
    if (!first) throw new Error('no server');
    const search = await fetch(`${first.child.url}/api/employee/search`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${first.token}`, 'Content-Type': 'application/json' },
      body: '{"limit":1}',
    });
    const employeeId = String(((await search.json()) as { items: { id: string }[] }).items[0]?.id);
    const auth = (server: Server) => ({ Authorization: `Bearer ${server.token}` });
    const getSpec = (server: Server): LoadSpec => ({
      url: server.child.url,
      path: `/api/employee/${employeeId}`,
      headers: auth(server),
      connections: 10,
      duration: s.seconds,
    });
    s.log('GET /api/employee/:id with a token: every change against every change but one');
    const get = await interleaved(
      servers.map((server) => ({ key: server.key, label: server.label, child: server.child, spec: getSpec(server) })),
      rounds,
      s.log,
    );

    // The router's children: each user touched once, so that a thousand are live under it.
    const routed = servers.filter((server) => server.key === 'all' || server.key === 'one-context');
    const activitySpec = (server: Server): LoadSpec => ({
      url: server.child.url,
      path: '/',
      headers: auth(server),
      connections: 10,
      linesFile: paths,
      linesAs: 'path',
      duration: s.seconds,
    });
    for (const server of routed) await load({ ...activitySpec(server), amount: CHILDREN });
    s.log(`GET /api/users/activity with ${CHILDREN} live children under the router: with and without one context`);
    const activity = await interleaved(
      routed.map((server) => ({
        key: server.key,
        label: server.label,
        child: server.child,
        spec: activitySpec(server),
      })),
      rounds,
      s.log,
    );
    record(report, get, activity);
  } finally {
    await Promise.all(servers.map((server) => server.child.stop()));
  }
}

function of(best: Map<Key, BestRound>, key: Key): BestRound {
  const found = best.get(key);
  if (!found) throw new Error(`no measurement of the ${key} server`);
  return found;
}

function record(report: Report, get: Map<Key, BestRound>, activity: Map<Key, BestRound>): void {
  const label = (key: Key): string => VARIANTS.find((v) => v.key === key)?.label ?? key;
  for (const v of VARIANTS) {
    const b = of(get, v.key);
    report.measurements.push(
      row(`GET /api/employee/:id, bearer token, ${v.label}`, b.r, b.rss, `${b.cpuUs.toFixed(1)} CPU µs/request`),
    );
  }
  for (const key of ['all', 'one-context'] as const) {
    const b = of(activity, key);
    report.measurements.push(
      row(
        `GET /api/users/activity, ${CHILDREN} live children, ${label(key)}`,
        b.r,
        b.rss,
        `${b.cpuUs.toFixed(1)} CPU µs/request`,
      ),
    );
  }
  const all = of(get, 'all');
  const gain = (request: string, without: BestRound, base: BestRound, key: Key) => ({
    claim: `17. ${key} on ${request}: CPU per request without / with`,
    ratio: without.cpuUs / base.cpuUs,
    op: '>=' as const,
    bound: 1.05,
    meaning: `${without.cpuUs.toFixed(1)} against ${base.cpuUs.toFixed(1)} CPU µs per request; req/s with / without ${(base.r.rps / without.r.rps).toFixed(3)}`,
  });
  for (const key of ['one-context', 'messages-per-turn'] as const)
    report.claims.push(gain('claim 10', of(get, key), all, key));
  report.claims.push(gain('the router', of(activity, 'one-context'), of(activity, 'all'), 'one-context'));
}

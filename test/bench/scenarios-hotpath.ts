/** Scenarios 10–11: what the stack costs on a read and on a write, against bare Koa handlers on the same file. */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { login } from '../helpers/tokens.ts';
import {
  load,
  startBare,
  startTroupe,
  tempDir,
  warmUp,
  type Child,
  type LoadResult,
  type LoadSpec,
} from './harness.ts';
import type { Report } from './report.ts';
import { row, type BenchSettings } from './scenarios-security.ts';
import { seedEmployees, seedUsers } from './seed.ts';

interface Pair {
  readonly troupe: { r: LoadResult; rss: number };
  readonly bare: { r: LoadResult; rss: number };
}

/** Best of two interleaved runs each, so a slow moment of the machine hits both alike. */
async function sideBySide(
  troupe: Child,
  bare: Child,
  spec: (child: Child) => LoadSpec,
  s: BenchSettings,
  what: string,
): Promise<Pair> {
  let best: Partial<Record<'troupe' | 'bare', { r: LoadResult; rss: number }>> = {};
  await warmUp(spec(troupe));
  await warmUp(spec(bare));
  for (let round = 1; round <= 2; round++) {
    for (const [name, child] of [
      ['troupe', troupe],
      ['bare', bare],
    ] as const) {
      const r = await load(spec(child));
      s.log(`  ${what}, ${name} round ${round}: ${r.rps.toFixed(0)} req/s, p99 ${r.p99} ms`);
      if (!best[name] || r.rps > (best[name]?.r.rps ?? 0)) best = { ...best, [name]: { r, rss: child.rss() } };
    }
  }
  if (!best.troupe || !best.bare) throw new Error('a measurement is missing');
  return { troupe: best.troupe, bare: best.bare };
}

/** Scenarios 10 and 11, on one data directory: employees and users seeded, both servers on the file. */
export async function hotPath(report: Report, s: BenchSettings): Promise<void> {
  const dir = tempDir('hotpath');
  seedEmployees(dir, 1000);
  const users = seedUsers(dir, 100);
  const troupe = await startTroupe(dir);
  const bare = await startBare(join(dir, 'troupe.db'), dir);
  try {
    const token = (await login(troupe.url)).access_token;
    const employeeId = String(
      (
        (await (
          await fetch(`${troupe.url}/api/employee/search`, {
            method: 'POST',
            headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
            body: '{"limit":1}',
          })
        ).json()) as { items: { id: string }[] }
      ).items[0]?.id,
    );
    s.log('GET /api/employee/:id: troupe with a token vs a bare Koa primary-key read');
    const get = await sideBySide(
      troupe,
      bare,
      (child) => ({
        url: child.url,
        path: `/api/employee/${employeeId}`,
        headers: { Authorization: `Bearer ${token}` },
        connections: 10,
        duration: s.seconds,
      }),
      s,
      'employee get',
    );
    const bodies = join(dir, 'activities.txt');
    writeFileSync(
      bodies,
      users.map((userId, i) => JSON.stringify({ userId, type: 'BENCH', detail: { i } })).join('\n'),
    );
    s.log('POST /api/users/activity: troupe with a token vs a bare Koa insert (data.sqlite.synchronous=FULL in both)');
    const post = await sideBySide(
      troupe,
      bare,
      (child) => ({
        url: child.url,
        path: '/api/users/activity',
        method: 'POST',
        headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
        connections: 10,
        duration: s.seconds,
        linesFile: bodies,
        linesAs: 'body',
      }),
      s,
      'activity post',
    );
    report.measurements.push(
      row('GET /api/employee/:id, bearer token', get.troupe.r, get.troupe.rss),
      row('bare Koa: the same primary-key read and JSON', get.bare.r, get.bare.rss, 'baseline of claim 10'),
      row(
        'POST /api/users/activity, bearer token',
        post.troupe.r,
        post.troupe.rss,
        "through the activity router and the user's ActivityActor",
      ),
      row(
        'bare Koa: the same insert, its own transaction',
        post.bare.r,
        post.bare.rss,
        'baseline of claim 11 (synchronous=FULL in both)',
      ),
    );
    report.claims.push(
      {
        claim: '10. employee get with a token / bare Koa primary-key read',
        ratio: get.troupe.r.rps / get.bare.r.rps,
        op: '>=',
        bound: 0.75,
        meaning: 'the cost of the stack itself, which keeping answers cannot hide',
      },
      {
        claim: '11. activity writes with a token / bare Koa insert',
        ratio: post.troupe.r.rps / post.bare.r.rps,
        op: '>=',
        bound: 0.6,
        meaning: 'a write through two actors',
      },
    );
  } finally {
    await bare.stop();
    await troupe.stop();
  }
}

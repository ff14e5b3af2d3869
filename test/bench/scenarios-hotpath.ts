/** Scenarios 10–11: what the stack costs on a read and on a write, against bare Koa handlers on the same file. */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { login } from '../helpers/tokens.ts';
import { interleaved, startBare, startTroupe, tempDir, type BestRound, type Child, type LoadSpec } from './harness.ts';
import type { Report } from './report.ts';
import { row, type BenchSettings } from './scenarios-security.ts';
import { seedEmployees, seedUsers } from './seed.ts';

/**
 * Troupe and the bare handler, after a warm-up each, in interleaved rounds (best of each): their
 * req/s and CPU µs per request.
 */
async function sideBySide(
  troupe: Child,
  bare: Child,
  spec: (child: Child) => LoadSpec,
  s: BenchSettings,
  what: string,
): Promise<Record<'troupe' | 'bare', BestRound>> {
  const best = await interleaved(
    [
      { key: 'troupe', label: `${what}, troupe`, child: troupe, spec: spec(troupe) },
      { key: 'bare', label: `${what}, bare`, child: bare, spec: spec(bare) },
    ] as const,
    2,
    s.log,
  );
  const of = (key: 'troupe' | 'bare'): BestRound => {
    const b = best.get(key);
    if (!b) throw new Error('a measurement is missing');
    return b;
  };
  return { troupe: of('troupe'), bare: of('bare') };
}

const cpu = (b: BestRound): string => `${b.cpuUs.toFixed(1)} CPU µs/request`;

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
      row('GET /api/employee/:id, bearer token', get.troupe.r, get.troupe.rss, cpu(get.troupe)),
      row(
        'bare Koa: the same primary-key read and JSON',
        get.bare.r,
        get.bare.rss,
        `baseline of claim 10; ${cpu(get.bare)}`,
      ),
      row(
        'POST /api/users/activity, bearer token',
        post.troupe.r,
        post.troupe.rss,
        `through the activity router and the user's ActivityActor; ${cpu(post.troupe)}`,
      ),
      row(
        'bare Koa: the same insert, its own transaction',
        post.bare.r,
        post.bare.rss,
        `baseline of claim 11 (synchronous=FULL in both); ${cpu(post.bare)}`,
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
        claim: '10b. CPU per employee get, bare Koa / with a token',
        ratio: get.bare.cpuUs / get.troupe.cpuUs,
        op: 'info',
        bound: 0,
        meaning: `${get.bare.cpuUs.toFixed(1)} against ${get.troupe.cpuUs.toFixed(1)} CPU µs per request (less disturbed by other work on the machine than req/s)`,
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

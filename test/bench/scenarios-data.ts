/** Scenarios 5–7: employees at 1k and 100k records, ActivityActor passivation, start-up time. */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { login } from '../helpers/tokens.ts';
import {
  load,
  sleep,
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

/** What clients ask most: the first page, a common surname, a decade of birth dates. */
const TYPICAL_SEARCHES = [
  {},
  { name: 'smith' },
  { name: 'ada' },
  { bornFrom: '1960-01-01', bornTo: '1969-12-31' },
  { name: 'wirth', limit: 20 },
];
/** A name held by 1 record in 500: the index is walked until a page is full. */
const SELECTIVE_SEARCH = { name: 'grace hopper' };

interface EmployeeRun {
  readonly typical: LoadResult;
  readonly selective: LoadResult;
  readonly create: LoadResult;
  readonly rss: number;
}

async function employeeRun(records: number, s: BenchSettings): Promise<EmployeeRun> {
  const dir = tempDir(`employees-${records}`);
  const seeded = performance.now();
  seedEmployees(dir, records);
  s.log(`employees: ${records} records seeded in ${Math.round(performance.now() - seeded)} ms`);
  const server = await startTroupe(dir);
  try {
    const headers = {
      Authorization: `Bearer ${(await login(server.url)).access_token}`,
      'Content-Type': 'application/json',
    };
    const bodies = join(dir, 'searches.txt');
    writeFileSync(bodies, TYPICAL_SEARCHES.map((b) => JSON.stringify(b)).join('\n'));
    const search: LoadSpec = {
      url: server.url,
      path: '/api/employee/search',
      method: 'POST',
      headers,
      connections: 10,
      duration: s.seconds,
    };
    await warmUp({ ...search, linesFile: bodies, linesAs: 'body' });
    const typical = await load({ ...search, linesFile: bodies, linesAs: 'body' });
    const selective = await load({ ...search, body: JSON.stringify(SELECTIVE_SEARCH) });
    const create = await load({
      ...search,
      path: '/api/employee/create',
      body: '{"name":"Bench [<id>]","dateOfBirth":"1990-04-12"}',
      idReplacement: true,
    });
    return { typical, selective, create, rss: server.rss() };
  } finally {
    await server.stop();
  }
}

/** Scenario 5. */
export async function employees(report: Report, s: BenchSettings): Promise<void> {
  const small = await employeeRun(1_000, s);
  const large = await employeeRun(100_000, s);
  for (const [n, r] of [
    ['1k', small],
    ['100k', large],
  ] as const) {
    report.measurements.push(
      row(
        `POST /api/employee/search, typical, ${n} records`,
        r.typical,
        r.rss,
        n === '1k' ? 'baseline of claim 5' : undefined,
      ),
      row(`POST /api/employee/search, 1-in-500 name, ${n} records`, r.selective, r.rss),
      row(`POST /api/employee/create, ${n} records`, r.create, r.rss),
    );
  }
  report.claims.push(
    {
      claim: '5. search p99 at 100k / at 1k records (typical searches)',
      ratio: large.typical.p99 / Math.max(small.typical.p99, 1),
      op: '<=',
      bound: 3,
      meaning: 'searches walk the index, not the table',
    },
    {
      claim: '5. search p99 at 100k / at 1k (1-in-500 name)',
      ratio: large.selective.p99 / Math.max(small.selective.p99, 1),
      op: 'info',
      bound: 0,
      meaning: 'the index is walked until a page is full: rarer names cost more',
    },
    {
      claim: '5. creates/s at 100k / at 1k records',
      ratio: large.create.rps / small.create.rps,
      op: 'info',
      bound: 0,
      meaning: 'inserts do not slow down as the table grows',
    },
  );
}

async function liveActivityActors(server: Child): Promise<number> {
  const text = await fetch(`${server.url}/metrics`).then((r) => r.text());
  return Number(/^actor_live\{actor="activity\/\*",pid="\d+"\} (\d+)$/m.exec(text)?.[1] ?? 0);
}

/** Polls until at most `max` activity actors are live; returns the count and the time it took. */
async function drain(server: Child, max: number, timeoutMs: number): Promise<{ live: number; ms: number }> {
  const started = performance.now();
  let live = await liveActivityActors(server);
  while (live > max && performance.now() - started < timeoutMs) {
    await sleep(500);
    live = await liveActivityActors(server);
  }
  return { live, ms: performance.now() - started };
}

/**
 * How long the server may stay idle after its actors stopped before its RSS is taken. V8 collects
 * the stopped actors and hands its heap pages back when its memory reducer runs, some seconds after
 * allocation stops (≈10 s here); a sample taken at once weighs garbage, not live actors.
 */
const SETTLE_MS = 30_000;

/** RSS (MiB) right after the drain and {@link SETTLE_MS} later, with no requests in between. */
async function settleRss(server: Child): Promise<{ drained: number; settled: number }> {
  const drained = server.rss();
  await sleep(SETTLE_MS);
  return { drained, settled: server.rss() };
}

/** Runs the load while sampling the live actor count and RSS every 2 s. */
async function touchAndWatch(
  server: Child,
  spec: LoadSpec,
): Promise<{ touched: LoadResult; peakLive: number; peakRss: number }> {
  let peakLive = 0;
  let peakRss = server.rss();
  const touching = load(spec);
  let done = false;
  void touching.finally(() => {
    done = true;
  });
  while (!done) {
    await sleep(2000);
    peakLive = Math.max(peakLive, await liveActivityActors(server));
    peakRss = Math.max(peakRss, server.rss());
  }
  return { touched: await touching, peakLive, peakRss };
}

export interface ActivitySettings {
  readonly users: number;
  readonly idleMs: number;
}

interface ActivityFigures {
  readonly peakLive: number;
  readonly endLive: number;
  readonly startRss: number;
  readonly peakRss: number;
  readonly drainedRss: number;
  readonly endRss: number;
}

function reportActivity(report: Report, a: ActivitySettings, touched: LoadResult, f: ActivityFigures): void {
  report.measurements.push(
    row(
      `GET /api/users/activity, ${a.users} distinct users`,
      touched,
      f.endRss,
      `idle-ms ${a.idleMs}; live actors: peak ${f.peakLive}, end ${f.endLive}; RSS MiB: start ${f.startRss.toFixed(0)}, peak ${f.peakRss.toFixed(0)}, when the actors had stopped ${f.drainedRss.toFixed(0)}, ${SETTLE_MS / 1000} s later ${f.endRss.toFixed(0)}`,
    ),
  );
  report.claims.push(
    {
      claim: `6. live ActivityActors after idle / users touched (${a.users})`,
      ratio: f.endLive / a.users,
      op: '<=',
      bound: 0.01,
      meaning: 'idle actors stop',
    },
    {
      claim: `6. RSS ${SETTLE_MS / 1000} s after the actors stopped / RSS before the touch`,
      ratio: f.endRss / f.startRss,
      op: '<=',
      bound: 1.5,
      meaning: 'stopped actors give their memory back',
    },
  );
}

/** Scenario 6: touch many users' ActivityActors, wait past the idle time, count and weigh what is left. */
export async function activity(report: Report, s: BenchSettings, a: ActivitySettings): Promise<void> {
  const dir = tempDir('activity');
  const ids = seedUsers(dir, a.users + 500);
  const paths = (list: readonly string[], file: string): string => {
    writeFileSync(join(dir, file), list.map((id) => `/api/users/activity?userId=${id}&limit=1`).join('\n'));
    return join(dir, file);
  };
  const server = await startTroupe(dir, { ACTORS_ACTIVITY_IDLE_MS: String(a.idleMs) });
  try {
    const spec: LoadSpec = {
      url: server.url,
      path: '/',
      headers: { Authorization: `Bearer ${(await login(server.url)).access_token}` },
      connections: 10,
      linesAs: 'path',
    };
    await load({ ...spec, amount: 500, linesFile: paths(ids.slice(a.users), 'warm.txt') });
    await drain(server, 0, a.idleMs + 10_000);
    const startRss = server.rss();
    s.log(
      `activity: touching ${a.users} users' ActivityActors (idle-ms ${a.idleMs}), start RSS ${startRss.toFixed(0)} MiB`,
    );
    const { touched, peakLive, peakRss } = await touchAndWatch(server, {
      ...spec,
      amount: a.users,
      linesFile: paths(ids.slice(0, a.users), 'touch.txt'),
    });
    const after = await drain(server, Math.floor(a.users / 100), a.idleMs + 60_000);
    const { drained, settled } = await settleRss(server);
    const endLive = await liveActivityActors(server);
    const endRss = settled;
    s.log(
      `activity: peak ${peakLive} live, ${endLive} after ${Math.round(after.ms)} ms; RSS peak ${peakRss.toFixed(0)}, at the drain ${drained.toFixed(0)}, ${SETTLE_MS / 1000} s later ${endRss.toFixed(0)} MiB`,
    );
    reportActivity(report, a, touched, { peakLive, endLive, startRss, peakRss, drainedRss: drained, endRss });
  } finally {
    await server.stop();
  }
}

const median = (xs: readonly number[]): number => {
  const sorted = [...xs].sort((x, y) => x - y);
  return sorted[Math.floor(sorted.length / 2)] ?? NaN;
};

/** Scenario 7: process start to /ready 200, median of `times`, against the bare server's start. */
export async function startUp(dir: string, report: Report, s: BenchSettings, times = 5): Promise<void> {
  const troupe: number[] = [];
  const bare: number[] = [];
  for (let i = 0; i < times; i++) {
    const t = await startTroupe(dir);
    troupe.push(t.startMs);
    await t.stop();
    const b = await startBare(join(dir, 'troupe.db'), dir);
    bare.push(b.startMs);
    await b.stop();
  }
  s.log(`start-up ms: troupe ${troupe.map(Math.round).join(', ')}; bare ${bare.map(Math.round).join(', ')}`);
  report.measurements.push(
    {
      scenario: 'start-up: spawn to /ready 200, median of 5 (ms in p50)',
      p50: median(troupe),
      note: `runs: ${troupe.map(Math.round).join(', ')} ms`,
    },
    {
      scenario: 'bare Koa start-up: spawn to first 200, median of 5',
      p50: median(bare),
      note: 'baseline: node + Koa + SQLite',
    },
  );
  report.claims.push({
    claim: '7. start-up / bare Koa start-up',
    ratio: median(troupe) / median(bare),
    op: 'info',
    bound: 0,
    meaning: 'what migrations, initial data, key, worker pool and actors add to a start',
  });
}

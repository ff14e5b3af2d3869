/** Scenarios 5 and 7: employees at 1k and 100k records, start-up time (6, ActivityActors, is scenarios-activity.ts). */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { login } from '../helpers/tokens.ts';
import { load, startBare, startTroupe, tempDir, warmUp, type LoadResult, type LoadSpec } from './harness.ts';
import type { Report } from './report.ts';
import { row, type BenchSettings } from './scenarios-security.ts';
import { seedEmployees } from './seed.ts';

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

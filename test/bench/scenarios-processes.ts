/** Scenarios 8–9: several processes. listAll on two workers against one; creates from two instances against one. */
import { login } from '../helpers/tokens.ts';
import { load, startTroupe, tempDir, warmUp, type Child, type LoadResult, type LoadSpec } from './harness.ts';
import type { Report } from './report.ts';
import { interleaved, row, type BenchSettings, type Target } from './scenarios-security.ts';

/** What every instance on one data directory shares besides the data. */
const SHARED = { SECURITY_JWT_ISSUER: 'http://troupe.bench' };

/** Scenario 8: GET /app/listAll, server.workers=2 against server.workers=1 on one data directory. */
export async function workers(report: Report, s: BenchSettings): Promise<void> {
  const dir = tempDir('workers');
  const one = await startTroupe(dir, SHARED);
  const two = await startTroupe(dir, { ...SHARED, SERVER_WORKERS: '2' });
  try {
    const token = (await login(one.url)).access_token;
    const headers = { Authorization: `Bearer ${token}` };
    const targets: Target[] = [
      { name: 'workers=1', child: one, headers },
      { name: 'workers=2', child: two, headers },
    ];
    s.log('GET /app/listAll, 32 connections: server.workers=1 vs server.workers=2');
    const best = await interleaved(targets, s, 2, 32);
    const get = (name: string) => best.get(name) ?? missing();
    report.measurements.push(
      row(
        'GET /app/listAll, server.workers=1, 32 connections',
        get('workers=1').r,
        get('workers=1').rss,
        'baseline of claim 8',
      ),
      row(
        'GET /app/listAll, server.workers=2, 32 connections',
        get('workers=2').r,
        get('workers=2').rss,
        'RSS: primary and both workers',
      ),
    );
    report.claims.push({
      claim: '8. listAll req/s, server.workers=2 / server.workers=1',
      ratio: get('workers=2').r.rps / get('workers=1').r.rps,
      op: '>=',
      bound: 1.3,
      meaning: 'a second core serves HTTP (the load generator shares the same 2 cores)',
    });
  } finally {
    await two.stop();
    await one.stop();
  }
}

const createSpec = (server: Child, token: string, connections: number, seconds: number): LoadSpec => ({
  url: server.url,
  path: '/api/employee/create',
  method: 'POST',
  connections,
  duration: seconds,
  idReplacement: true,
  headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
  body: '{"name":"Bench [<id>]","dateOfBirth":"1990-04-12"}',
});

const sum = (a: LoadResult, b: LoadResult): LoadResult => ({
  total: a.total + b.total,
  seconds: Math.max(a.seconds, b.seconds),
  ok: a.ok + b.ok,
  non2xx: a.non2xx + b.non2xx,
  errors: a.errors + b.errors,
  timeouts: a.timeouts + b.timeouts,
  p50: Math.max(a.p50, b.p50),
  p99: Math.max(a.p99, b.p99),
  rps: a.rps + b.rps,
});

/** Scenario 9: employee creates/s from two instances writing one SQLite file at once, against one instance alone. */
export async function sharedWrites(report: Report, s: BenchSettings): Promise<void> {
  const dir = tempDir('shared-writes');
  const a = await startTroupe(dir, SHARED);
  const b = await startTroupe(dir, SHARED);
  try {
    const token = (await login(a.url)).access_token;
    s.log('POST /api/employee/create, 10 connections: one instance, then two instances on one data directory (5 each)');
    await warmUp(createSpec(a, token, 10, s.seconds));
    const alone = await load(createSpec(a, token, 10, s.seconds));
    await warmUp(createSpec(b, token, 5, s.seconds));
    const [ra, rb] = await Promise.all([
      load(createSpec(a, token, 5, s.seconds)),
      load(createSpec(b, token, 5, s.seconds)),
    ]);
    const both = sum(ra, rb);
    report.measurements.push(
      row(
        'POST /api/employee/create, one instance, 10 connections',
        alone,
        a.rss(),
        'baseline of claim 9 (data.sqlite.synchronous=FULL)',
      ),
      row(
        'POST /api/employee/create, two instances on one file, 5 connections each',
        both,
        a.rss() + b.rss(),
        `${ra.rps.toFixed(0)} + ${rb.rps.toFixed(0)} req/s; RSS of both`,
      ),
    );
    report.claims.push({
      claim: '9. creates/s, two instances on one file / one instance',
      ratio: both.rps / alone.rps,
      op: '>=',
      bound: 0.8,
      meaning: 'no collapse under write contention (the SQLite write lock is shared)',
    });
  } finally {
    await b.stop();
    await a.stop();
  }
}

function missing(): never {
  throw new Error('a measurement is missing');
}

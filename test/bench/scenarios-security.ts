/** Scenarios 1–4: /app/listAll against its baselines, the token endpoint against BCrypt, a login storm. */
import { join } from 'node:path';
import bcrypt from 'bcryptjs';
import { costOf } from '../../src/security/passwords.ts';
import { basic, login, USERS } from '../helpers/tokens.ts';
import {
  interleaved as interleavedRounds,
  load,
  startBare,
  startTroupe,
  tempDir,
  warmUp,
  type BestRound,
  type Child,
  type LoadResult,
  type LoadSpec,
} from './harness.ts';
import { createLoginAccounts, loginBodies } from './logins.ts';
import type { Measurement, Report } from './report.ts';

export interface BenchSettings {
  /** Seconds per measurement. */
  readonly seconds: number;
  readonly log: (line: string) => void;
}

const failedOf = (r: LoadResult): number => r.non2xx + r.errors + r.timeouts;

export const row = (scenario: string, r: LoadResult, rss: number, note?: string): Measurement => ({
  scenario,
  rps: r.rps,
  p50: r.p50,
  p99: r.p99,
  rss,
  failed: failedOf(r),
  ...(note ? { note } : {}),
});

export interface Target {
  readonly name: string;
  readonly child: Child;
  readonly headers: Record<string, string>;
}

/**
 * Best of `rounds` interleaved runs of listAll per target (the harness's `interleaved`: its most
 * req/s and its fewest server CPU µs per request), so a slow moment of the machine hits all alike.
 */
export const interleaved = (
  targets: readonly Target[],
  s: BenchSettings,
  rounds = 2,
  connections = 10,
): Promise<Map<string, BestRound>> =>
  interleavedRounds(
    targets.map((t) => ({
      key: t.name,
      label: t.name,
      child: t.child,
      spec: { url: t.child.url, path: '/app/listAll', headers: t.headers, connections, duration: s.seconds },
    })),
    rounds,
    s.log,
  );

async function sameBody(a: Target, b: Target): Promise<boolean> {
  const body = (t: Target): Promise<string> =>
    fetch(`${t.child.url}/app/listAll`, { headers: t.headers }).then((r) => r.text());
  return (await body(a)) === (await body(b));
}

/** Scenarios 1 and 2. Leaves the secured server running for the next scenarios. */
export async function listAll(
  dir: string,
  report: Report,
  s: BenchSettings,
): Promise<{ secured: Child; token: string }> {
  const secured = await startTroupe(dir);
  const open = await startTroupe(dir, { SECURITY_ENABLED: 'false' });
  const bare = await startBare(join(dir, 'troupe.db'), dir);
  const token = (await login(secured.url)).access_token;
  const targets: Target[] = [
    { name: 'bearer token', child: secured, headers: { Authorization: `Bearer ${token}` } },
    { name: 'security off', child: open, headers: {} },
    { name: 'bare Koa', child: bare, headers: {} },
  ];
  const [tok, off, raw] = targets as [Target, Target, Target];
  if (!(await sameBody(tok, raw)) || !(await sameBody(off, raw)))
    throw new Error('the bare server does not answer the same JSON');
  s.log('GET /app/listAll: bearer token vs security off vs bare Koa');
  const best = await interleaved(targets, s);
  await open.stop();
  await bare.stop();
  const get = (t: Target): BestRound => best.get(t.name) ?? missing();
  const cpu = (t: Target): string => `${get(t).cpuUs.toFixed(1)} CPU µs/request`;
  report.measurements.push(
    row('GET /app/listAll, bearer token', get(tok).r, get(tok).rss, cpu(tok)),
    row('GET /app/listAll, security.enabled=false', get(off).r, get(off).rss, `baseline of claim 1; ${cpu(off)}`),
    row('bare Koa + read-only SQLite, same JSON', get(raw).r, get(raw).rss, `baseline of claim 2; ${cpu(raw)}`),
  );
  report.claims.push(
    {
      claim: '1. listAll with a token / security off',
      ratio: get(tok).r.rps / get(off).r.rps,
      op: '>=',
      bound: 0.85,
      meaning: 'what checking a bearer token costs (cached verification)',
    },
    {
      claim: '1b. CPU per listAll request, security off / with a token',
      ratio: get(off).cpuUs / get(tok).cpuUs,
      op: 'info',
      bound: 0,
      meaning: `${get(off).cpuUs.toFixed(1)} against ${get(tok).cpuUs.toFixed(1)} CPU µs per request (less disturbed by other work on the machine than req/s)`,
    },
    {
      claim: '2. listAll with a token / bare Koa handler',
      ratio: get(tok).r.rps / get(raw).r.rps,
      op: '>=',
      bound: 0.85,
      meaning: 'what the whole stack costs: middleware, security, actor ask',
    },
  );
  return { secured, token };
}

function missing(): never {
  throw new Error('a measurement is missing');
}

/** Single-thread bcryptjs compares per second, in this process, on the hash the logins check. */
function bcryptRate(password: string, hash: string, seconds = 3): number {
  const started = performance.now();
  let n = 0;
  while (performance.now() - started < seconds * 1000) {
    if (!bcrypt.compareSync(password, hash)) throw new Error('the baseline hash does not match');
    n++;
  }
  return n / ((performance.now() - started) / 1000);
}

/** The password-grant load: the logins of many accounts in turn, each its own compare (`logins.ts`). */
const tokenSpec = (url: string, bodies: string): LoadSpec => ({
  url,
  path: '/oauth/token',
  method: 'POST',
  headers: { Authorization: basic(), 'Content-Type': 'application/x-www-form-urlencoded' },
  linesFile: bodies,
  linesAs: 'body',
});

/** Their password, hashed by the server at its cost (10, john.doe's: the baseline's). */
const LOGIN_PASSWORD = 'storm-login-passphrase';

/** The accounts of the password-grant loads, created on `secured`, and the file of their logins. */
async function loginLoad(secured: Child): Promise<string> {
  const admin = (await login(secured.url, USERS.admin, 'write')).access_token;
  await createLoginAccounts(secured.url, admin, LOGIN_PASSWORD);
  return loginBodies(tempDir('logins'), LOGIN_PASSWORD);
}

/** Scenario 3. */
export async function tokenRate(secured: Child, johnHash: string, report: Report, s: BenchSettings): Promise<string> {
  if (costOf(johnHash) !== 10) throw new Error('the bench expects cost-10 hashes in data/initial-data.json');
  const bodies = await loginLoad(secured);
  s.log('BCrypt baseline: one thread of bcryptjs compareSync, cost 10, before and after the token run');
  const before = bcryptRate(USERS.john.password, johnHash);
  s.log('POST /oauth/token, password grant, 8 connections');
  await warmUp({ ...tokenSpec(secured.url, bodies), connections: 8 });
  const r = await load({ ...tokenSpec(secured.url, bodies), connections: 8, duration: s.seconds });
  const baseline = (before + bcryptRate(USERS.john.password, johnHash)) / 2;
  report.measurements.push(
    {
      scenario: 'bcryptjs compareSync, cost 10, one thread',
      rps: baseline,
      note: 'baseline of claim 3 (compares/s, mean of a run before and after)',
    },
    row('POST /oauth/token, password grant', r, secured.rss(), 'one BCrypt per request'),
  );
  report.claims.push(
    {
      claim: '3. tokens/s / one-thread BCrypt compares/s',
      ratio: r.rps / baseline,
      op: '>=',
      bound: 1.6,
      meaning: 'the worker pool uses every core for logins',
    },
    {
      claim: '3. token requests that succeeded',
      ratio: r.ok / Math.max(1, r.total),
      op: '>=',
      bound: 1,
      meaning: 'no login refused or throttled under load',
    },
  );
  return bodies;
}

/** Scenario 4: the same fixed-rate probe of /app/listAll, alone and during a login storm. */
export async function stormIsolation(
  secured: Child,
  token: string,
  bodies: string,
  report: Report,
  s: BenchSettings,
): Promise<void> {
  const probe: LoadSpec = {
    url: secured.url,
    path: '/app/listAll',
    headers: { Authorization: `Bearer ${token}` },
    connections: 4,
    overallRate: 200,
    duration: s.seconds,
  };
  s.log('GET /app/listAll at 200 req/s, alone and during a login storm (16 connections on /oauth/token)');
  await warmUp(probe);
  const calm = await load(probe);
  const storm = load({ ...tokenSpec(secured.url, bodies), connections: 16, duration: s.seconds + 2 });
  await new Promise((resolve) => setTimeout(resolve, 1000));
  const stormy = await load(probe);
  const stormResult = await storm;
  report.measurements.push(
    row('GET /app/listAll at 200 req/s, no storm', calm, secured.rss(), 'baseline of claim 4'),
    row('GET /app/listAll at 200 req/s, during login storm', stormy, secured.rss()),
    row('  the login storm itself', stormResult, secured.rss()),
  );
  report.claims.push({
    claim: '4. listAll p99 during a login storm / without',
    ratio: stormy.p99 / Math.max(calm.p99, 1),
    op: '<=',
    bound: 3,
    meaning: 'logins on the worker pool do not stall other requests',
  });
}

/**
 * Scenarios 21 and 22: OpenID Connect against bare Koa handlers doing the same essential work
 * (`bare-openid.ts`), on one data directory:
 * - 21: `POST /oauth/token` with `grant_type=authorization_code`, each request redeeming a code of
 *   its own (`codes.ts`: fetched through the real authorization endpoint right before each
 *   measurement) for an access token and an RS256 id_token;
 * - 22: `GET /userinfo` with a bearer token granted `openid profile email`.
 * The servers and what they share: `openid-pair.ts`. 32 connections, best of interleaved rounds
 * each; both must answer alike first (`openid-answers.ts`).
 */
import { login, USERS } from '../helpers/tokens.ts';
import { cpuSeconds, interleaved, load, tempDir, type Child, type LoadResult } from './harness.ts';
import type { Report } from './report.ts';
import { fetchCodes } from './codes.ts';
import { sameOpenIdAnswers } from './openid-answers.ts';
import { OPENID_CLIENT, startOpenIdPair, TOKEN_FORM, type OpenIdPair } from './openid-pair.ts';
import { row, type BenchSettings } from './scenarios-security.ts';

const CONNECTIONS = 32;
/** Codes live 60 s: a measurement ends this long after its first code was asked for, at the latest. */
const CODE_BUDGET_S = 45;
/** Codes of each warm-up. */
const WARM_UP_CODES = 500;

/** How scenarios 21 and 22 run, for the report's notes. */
export const OPENID_NOTE =
  'Claims 21 and 22 run troupe, with its default key set (ES256 access tokens, RS256 id_tokens), and the bare OpenID handlers, which read those keys from the same SQLite file, with one issuer, audience and security.clients-file client (client_secret_basic, consent implicit) and 1,000 seeded accounts (cost-4 hashes, the configured cost), 32 connections, best of two interleaved rounds each; both must answer the same token fields, headers and claims (verified with the published keys) and the same UserInfo body first. Each measurement of 21 redeems codes fetched right before it through the authorization endpoint (16 sign-ins at a time, the accounts in turn), one per request: as many as its side redeems in the time of a measurement at its best rate so far, fewer when fetching them would leave the first code older than 45 s at the end (a code lives 60 s); it is timed to a tenth of a second, and every request must succeed.';

interface CodeRun {
  readonly r: LoadResult;
  readonly cpuUs: number;
  /** Codes a second the authorization endpoint gave before it. */
  readonly codeRate: number;
  /** The codes redeemed. */
  readonly count: number;
}

/**
 * Up to `want.count` fresh codes redeemed at `child`, every one of which must succeed: as many as
 * the authorization endpoint gives until a measurement twice as long as `want.seconds` would end
 * with the first code `CODE_BUDGET_S` old.
 */
async function redeemCodes(
  pair: OpenIdPair,
  child: Child,
  want: { readonly count: number; readonly seconds: number },
  label: string,
): Promise<CodeRun> {
  // At least a few seconds of codes, however long BENCH_SECONDS is: the measurement is then shorter.
  const fetching = { count: want.count, seconds: Math.max(5, CODE_BUDGET_S - 2 * want.seconds) };
  const codes = await fetchCodes(pair.troupe.url, OPENID_CLIENT, pair.accounts, fetching, pair.dir);
  if (codes.count === 0) throw new Error(`${label}: the authorization endpoint gave no code`);
  const before = cpuSeconds(child.pid);
  const r = await load({
    url: child.url,
    path: '/oauth/token',
    method: 'POST',
    headers: TOKEN_FORM,
    linesFile: codes.file,
    linesAs: 'body',
    connections: CONNECTIONS,
    amount: codes.count,
    // Its duration in tenths of a second, not whole ones: a run of a few seconds is timed within 3 %.
    sampleMs: 100,
  });
  const cpuUs = ((cpuSeconds(child.pid) - before) * 1e6) / Math.max(1, r.total);
  const failed = r.non2xx + r.errors + r.timeouts;
  const age = (performance.now() - codes.firstAt) / 1000;
  if (failed > 0 || r.total !== codes.count)
    throw new Error(
      `${label}: ${failed} of ${r.total} redemptions failed (${codes.count} codes, the oldest ${age.toFixed(0)} s old at the end; a code lives 60 s)`,
    );
  return { r, cpuUs, codeRate: codes.rate, count: codes.count };
}

/** Claim 21: interleaved rounds, each measurement on codes fetched right before it. */
async function codeFlow(pair: OpenIdPair, report: Report, s: BenchSettings, rounds: number): Promise<void> {
  const what = 'POST /oauth/token, authorization_code with an id_token';
  s.log(`${what}: troupe vs a bare Koa handler (${CONNECTIONS} connections, a fresh code per request)`);
  const sides = [
    { key: 'troupe', label: `${what}, troupe`, child: pair.troupe },
    { key: 'bare', label: `${what}, bare Koa`, child: pair.bare },
  ] as const;
  // A measurement takes as many codes as its side redeemed in `s.seconds` at its best so far.
  const sized = new Map<string, number>();
  const size = (key: string, rps: number) =>
    sized.set(key, Math.max(sized.get(key) ?? 100, Math.round(rps * s.seconds)));
  for (const side of sides) {
    const warm = await redeemCodes(pair, side.child, { count: WARM_UP_CODES, seconds: 2 }, `${side.label} warm-up`);
    size(side.key, warm.r.rps);
  }
  const best = new Map<string, CodeRun & { rss: number }>();
  for (let round = 1; round <= rounds; round++)
    for (const side of sides) {
      const want = { count: sized.get(side.key) ?? WARM_UP_CODES, seconds: s.seconds };
      const run = await redeemCodes(pair, side.child, want, side.label);
      s.log(
        `  ${side.label} round ${round}: ${run.r.rps.toFixed(0)} tokens/s over ${run.count} codes (${run.r.seconds.toFixed(1)} s), ${run.cpuUs.toFixed(0)} CPU µs/request; codes fetched at ${run.codeRate.toFixed(0)}/s`,
      );
      size(side.key, run.r.rps);
      const prev = best.get(side.key);
      best.set(side.key, {
        ...(prev && prev.r.rps >= run.r.rps ? prev : run),
        cpuUs: Math.min(prev?.cpuUs ?? Infinity, run.cpuUs),
        rss: side.child.rss(),
      });
    }
  const [t, b] = [best.get('troupe'), best.get('bare')];
  if (!t || !b) throw new Error('a measurement is missing');
  report.measurements.push(
    row(what, t.r, t.rss, `${t.cpuUs.toFixed(0)} CPU µs/request; ${t.count} codes in its best round`),
    row('bare Koa: the same essential work', b.r, b.rss, `baseline of claim 21; ${b.cpuUs.toFixed(0)} CPU µs/request`),
  );
  report.claims.push({
    claim: `21. ${what}, tokens/s / bare Koa`,
    ratio: t.r.rps / b.r.rps,
    op: '>=',
    bound: 0.75,
    meaning: 'redeeming a code costs its two signatures and two writes, the RS256 id_token most',
  });
}

/** Claim 22: `GET /userinfo` with one token, interleaved rounds. */
async function userInfo(pair: OpenIdPair, token: string, report: Report, s: BenchSettings, rounds: number) {
  const what = 'GET /userinfo, openid profile email';
  s.log(`${what}: troupe vs a bare Koa handler (${CONNECTIONS} connections)`);
  const spec = (child: Child) => ({
    url: child.url,
    path: '/userinfo',
    headers: { Authorization: `Bearer ${token}` },
    connections: CONNECTIONS,
    duration: s.seconds,
  });
  const best = await interleaved(
    [
      { key: 'troupe', label: `${what}, troupe`, child: pair.troupe, spec: spec(pair.troupe) },
      { key: 'bare', label: `${what}, bare Koa`, child: pair.bare, spec: spec(pair.bare) },
    ],
    rounds,
    s.log,
  );
  const [t, b] = [best.get('troupe'), best.get('bare')];
  if (!t || !b) throw new Error('a measurement is missing');
  report.measurements.push(
    row(what, t.r, t.rss, `${t.cpuUs.toFixed(0)} CPU µs/request`),
    row('bare Koa: the same essential work', b.r, b.rss, `baseline of claim 22; ${b.cpuUs.toFixed(0)} CPU µs/request`),
  );
  report.claims.push({
    claim: `22. ${what}, req/s / bare Koa`,
    ratio: t.r.rps / b.r.rps,
    op: '>=',
    bound: 0.75,
    meaning: 'UserInfo costs the account read, or less (a token verified once is kept)',
  });
}

/** Scenarios 21 and 22 on one fresh data directory; `rounds` interleaved rounds each. */
export async function openId(report: Report, s: BenchSettings, rounds = 2): Promise<void> {
  const pair = await startOpenIdPair(tempDir('openid'));
  try {
    const admin = (await login(pair.troupe.url, USERS.admin)).access_token;
    const token = await sameOpenIdAnswers(pair, admin);
    await codeFlow(pair, report, s, rounds);
    await userInfo(pair, token, report, s, rounds);
  } finally {
    await pair.stop();
  }
}

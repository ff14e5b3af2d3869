/**
 * Scenarios 18–20: machine-to-machine OAuth, and logins at the BCrypt limit.
 * - 18: `POST /oauth/token` with `grant_type=client_credentials` against a bare Koa handler doing
 *   its essential work (`bare-oauth.ts`): the Basic credentials by a cached check, one `jose`
 *   signature with the same key, the JSON;
 * - 19: `POST /oauth/introspect` of an access token against a bare handler doing the same
 *   credential check, one `jose` verification and the JSON;
 * - 20: the password grant against what the BCrypt worker pool (`src/security/passwords.ts`, as
 *   many threads as the server gives it) compares a second at the configured cost, in this process,
 *   measured before, between and after the grant's rounds (the best of each side).
 * Troupe and the bare server share one fixed HS256 key (`security.signing-key`), issuer, audience
 * and a `security.clients-file` with one client_credentials client; 32 connections each.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import bcrypt from 'bcryptjs';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import { costOf, createPasswordHasher } from '../../src/security/passwords.ts';
import { basic, USERS } from '../helpers/tokens.ts';
import {
  countsDown,
  interleaved,
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
import { loginAccounts, loginBodies } from './logins.ts';
import { row, type BenchSettings } from './scenarios-security.ts';

/** The client of claims 18 and 19 (`security.clients-file`). */
export const MACHINE_CLIENT = { id: 'bench-service', secret: 'bench-service-secret', scope: 'read write' } as const;
/** {@link MACHINE_CLIENT} as a `security.clients-file` entry. */
export const machineClientRegistration = () => ({
  client_id: MACHINE_CLIENT.id,
  client_secret: bcrypt.hashSync(MACHINE_CLIENT.secret, 10),
  token_endpoint_auth_method: 'client_secret_basic',
  grant_types: ['client_credentials'],
  scope: MACHINE_CLIENT.scope,
});
const ISSUER = 'http://troupe.bench';
const AUDIENCE = 'troupe-api';
const VALIDITY = 3600;
const CONNECTIONS = 32;

export interface MachinePair {
  readonly troupe: Child;
  readonly bare: Child;
  stop(): Promise<void>;
}

/** Troupe and the bare OAuth handlers on `dir`, with one key, issuer, audience and client. */
export async function startMachinePair(dir: string): Promise<MachinePair> {
  const key = randomBytes(48).toString('base64url');
  const clients = join(dir, 'clients.json');
  writeFileSync(clients, JSON.stringify([machineClientRegistration()]));
  const initial = JSON.parse(readFileSync('data/initial-data.json', 'utf8')) as {
    users: { username: string; password: string; roles?: string[] }[];
  };
  const john = initial.users.find((u) => u.username === USERS.john.username)?.password ?? '';
  initial.users.push(...loginAccounts(john));
  writeFileSync(join(dir, 'initial-data.json'), JSON.stringify(initial));
  const troupe = await startTroupe(dir, {
    APP_INITIAL_DATA: join(dir, 'initial-data.json'),
    SECURITY_SIGNING_KEY: key,
    SECURITY_CLIENTS_FILE: clients,
    SECURITY_JWT_ISSUER: ISSUER,
    SECURITY_JWT_RESOURCE_IDS: AUDIENCE,
    SECURITY_JWT_ACCESS_TOKEN_VALIDITY: String(VALIDITY),
  });
  const bare = await startBare(join(dir, 'troupe.db'), dir, {
    BARE_SIGNING_KEY: key,
    BARE_CLIENTS_FILE: clients,
    BARE_TOKEN_ISSUER: ISSUER,
    BARE_TOKEN_AUDIENCE: AUDIENCE,
    BARE_TOKEN_VALIDITY: String(VALIDITY),
  }).catch(async (error: unknown) => {
    await troupe.stop();
    throw error;
  });
  return {
    troupe,
    bare,
    async stop() {
      await bare.stop();
      await troupe.stop();
    },
  };
}

const FORM = {
  Authorization: basic(MACHINE_CLIENT.id, MACHINE_CLIENT.secret),
  'Content-Type': 'application/x-www-form-urlencoded',
};
const TOKEN_BODY = 'grant_type=client_credentials';

const post = async (child: Child, path: string, form: string) => {
  const response = await fetch(`${child.url}${path}`, { method: 'POST', headers: FORM, body: form });
  const body = await response.text();
  return { status: response.status, cacheControl: response.headers.get('cache-control'), body, answeredAt: Date.now() };
};

/** A token answer with what differs by issue (the token, its `jti`, `iat` and `exp`) left out. */
function comparable({ body, answeredAt }: { body: string; answeredAt: number }): unknown {
  const { access_token: token, jti, expires_in: expiresIn, ...rest } = JSON.parse(body) as Record<string, unknown>;
  if (typeof token !== 'string' || typeof expiresIn !== 'number') throw new Error(`not a token answer: ${body}`);
  const { jti: claimed, iat, exp, ...claims } = decodeJwt(token);
  if (claimed !== jti || typeof iat !== 'number' || exp !== iat + VALIDITY) throw new Error('an inconsistent token');
  return {
    fields: Object.keys(JSON.parse(body) as object),
    rest,
    header: decodeProtectedHeader(token),
    claims,
    counts: countsDown(expiresIn, exp, VALIDITY, answeredAt),
  };
}

/**
 * Throws unless troupe and the bare server answer alike: the same token answer (fields, header,
 * claims) and the same introspection, byte for byte, of a token, of another and of no token.
 * Answers a token troupe issued, for the introspection runs.
 */
export async function sameMachineAnswers(pair: MachinePair): Promise<string> {
  const [served, bare] = [
    await post(pair.troupe, '/oauth/token', TOKEN_BODY),
    await post(pair.bare, '/oauth/token', TOKEN_BODY),
  ];
  if (served.status !== 200 || bare.status !== 200)
    throw new Error(`token answers ${served.status} and ${bare.status}`);
  if (
    JSON.stringify(comparable(served)) !== JSON.stringify(comparable(bare)) ||
    served.cacheControl !== bare.cacheControl
  )
    throw new Error(`the bare server's token answer differs:\n${served.body}\n${bare.body}`);
  const token = String((JSON.parse(served.body) as { access_token: string }).access_token);
  const other = String((JSON.parse(bare.body) as { access_token: string }).access_token);
  for (const presented of [token, other, `${token.slice(0, -4)}AAAA`, 'not-a-token']) {
    const body = new URLSearchParams({ token: presented }).toString();
    const [a, b] = [
      await post(pair.troupe, '/oauth/introspect', body),
      await post(pair.bare, '/oauth/introspect', body),
    ];
    if (a.status !== 200 || a.body !== b.body || a.cacheControl !== b.cacheControl)
      throw new Error(`the bare server's introspection differs:\n${a.status} ${a.body}\n${b.status} ${b.body}`);
  }
  return token;
}

/** BCrypt comparisons a second by a pool of `threads` threads kept busy, in this process. */
async function poolRate(threads: number, password: string, hash: string, seconds: number): Promise<number> {
  const pool = createPasswordHasher(threads);
  try {
    await Promise.all(Array.from({ length: threads }, () => pool.verify(password, hash)));
    let n = 0;
    const started = performance.now();
    const deadline = started + seconds * 1000;
    const lane = async (): Promise<void> => {
      while (performance.now() < deadline) {
        if (!(await pool.verify(password, hash))) throw new Error('the baseline hash does not match');
        n++;
      }
    };
    await Promise.all(Array.from({ length: threads * 2 }, lane));
    return n / ((performance.now() - started) / 1000);
  } finally {
    await pool.close();
  }
}

/** john.doe's hash in the server's store (the initial data's, at the configured cost 10). */
const JOHN_HASH_COST = 10;

/** Scenarios 18–20 on one fresh data directory; `rounds` interleaved rounds each for 18 and 19. */
export async function machineToMachine(report: Report, s: BenchSettings, rounds = 2): Promise<void> {
  const pair = await startMachinePair(tempDir('machine'));
  try {
    const token = await sameMachineAnswers(pair);
    const spec =
      (path: string, body: string) =>
      (child: Child): LoadSpec => ({
        url: child.url,
        path,
        method: 'POST',
        headers: FORM,
        body,
        connections: CONNECTIONS,
        duration: s.seconds,
      });
    const measured = [
      {
        n: 18,
        what: 'POST /oauth/token, client_credentials',
        unit: 'tokens/s',
        spec: spec('/oauth/token', TOKEN_BODY),
      },
      {
        n: 19,
        what: 'POST /oauth/introspect of an access token',
        unit: 'req/s',
        spec: spec('/oauth/introspect', new URLSearchParams({ token }).toString()),
      },
    ];
    for (const m of measured) {
      s.log(`${m.what}: troupe vs a bare Koa handler (${CONNECTIONS} connections)`);
      const best = await interleaved(
        [
          { key: 'troupe', label: `${m.what}, troupe`, child: pair.troupe, spec: m.spec(pair.troupe) },
          { key: 'bare', label: `${m.what}, bare Koa`, child: pair.bare, spec: m.spec(pair.bare) },
        ],
        rounds,
        s.log,
      );
      const [t, b] = [best.get('troupe'), best.get('bare')];
      if (!t || !b) throw new Error('a measurement is missing');
      report.measurements.push(
        row(m.what, t.r, t.rss, `${t.cpuUs.toFixed(0)} CPU µs/request`),
        row(
          `bare Koa: the same essential work`,
          b.r,
          b.rss,
          `baseline of claim ${m.n}; ${b.cpuUs.toFixed(0)} CPU µs/request`,
        ),
      );
      report.claims.push({
        claim: `${m.n}. ${m.what}, ${m.unit} / bare Koa`,
        ratio: t.r.rps / b.r.rps,
        op: '>=',
        bound: 0.75,
        meaning:
          m.n === 18
            ? 'issuing a client token is its signature and the credential check'
            : 'introspection costs what verifying the token costs, or less',
      });
    }
    // 20: the password grant against the BCrypt pool the server has (one process: every core).
    const threads = Math.max(1, availableParallelism());
    const data = JSON.parse(readFileSync('data/initial-data.json', 'utf8')) as {
      users: { username: string; password: string }[];
    };
    const hash = data.users.find((u) => u.username === USERS.john.username)?.password ?? '';
    if (costOf(hash) !== JOHN_HASH_COST) throw new Error(`the bench expects john.doe's hash at cost ${JOHN_HASH_COST}`);
    s.log(`BCrypt pool: ${threads} threads comparing at cost ${JOHN_HASH_COST}, interleaved with the password grant`);
    const passwordSpec: LoadSpec = {
      url: pair.troupe.url,
      path: '/oauth/token',
      method: 'POST',
      headers: { Authorization: basic(), 'Content-Type': 'application/x-www-form-urlencoded' },
      // Many people's logins, each its own compare (`logins.ts`).
      linesFile: loginBodies(tempDir('logins')),
      linesAs: 'body',
      connections: 8,
    };
    await warmUp(passwordSpec);
    // Interleaved rounds, the best of each side, as every other claim: a slow moment of this
    // machine then lowers one round of one side, not the ratio.
    let pool = 0;
    let logins: LoadResult | undefined;
    for (let round = 1; round <= rounds; round++) {
      pool = Math.max(pool, await poolRate(threads, USERS.john.password, hash, 3));
      const r = await load({ ...passwordSpec, duration: s.seconds });
      s.log(`  round ${round}: ${r.rps.toFixed(1)} tokens/s; the pool ${pool.toFixed(1)} compares/s at best so far`);
      if (!logins || r.rps > logins.rps) logins = r;
    }
    pool = Math.max(pool, await poolRate(threads, USERS.john.password, hash, 3));
    if (!logins) throw new Error('a measurement is missing');
    s.log(`  ${logins.rps.toFixed(1)} tokens/s at best; the pool ${pool.toFixed(1)} compares/s at best`);
    report.measurements.push(
      {
        scenario: `BCrypt worker pool, ${threads} threads, cost ${JOHN_HASH_COST}`,
        rps: pool,
        note: `baseline of claim 20 (compares/s, the best of ${rounds + 1} runs of 3 s around the grant's rounds)`,
      },
      row('POST /oauth/token, password grant (8 connections)', logins, pair.troupe.rss(), 'one BCrypt per request'),
    );
    report.claims.push({
      claim: '20. password grant tokens/s / BCrypt pool compares/s',
      ratio: logins.rps / pool,
      op: '>=',
      bound: 0.9,
      meaning: 'logins run at the BCrypt limit: within 10 % of what the pool compares',
    });
  } finally {
    await pair.stop();
  }
}

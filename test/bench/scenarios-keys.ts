/**
 * Scenario 12: what the asymmetric default key (ES256, generated into the key set) costs against
 * the old default (a generated HS256 MAC key), on token issuance, on /app/listAll with a token,
 * and on introspection of one token (which shares the resource server's cache of verified tokens,
 * so that both pay a verification once per token). Logins check a cost-4 BCrypt hash here, so that the signature is a
 * visible part of a login.
 */
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { readFileSync, writeFileSync } from 'node:fs';
import bcrypt from 'bcryptjs';
import { basic, login, USERS } from '../helpers/tokens.ts';
import { load, startTroupe, tempDir, warmUp, type Child, type LoadResult, type LoadSpec } from './harness.ts';
import type { Report } from './report.ts';
import { loginAccounts, loginBodies } from './logins.ts';
import { row, type BenchSettings } from './scenarios-security.ts';

/**
 * The initial data with john.doe's hash at cost 4, and the accounts of the login load (`logins.ts`)
 * with it too; the server hashes at cost 4 as well, so no login is hashed again at another cost.
 */
function cheapLogins(dir: string): string {
  const data = JSON.parse(readFileSync('data/initial-data.json', 'utf8')) as {
    users: { username: string; password: string; roles?: string[] }[];
  };
  const cheap = bcrypt.hashSync(USERS.john.password, 4);
  for (const u of data.users) if (u.username === USERS.john.username) u.password = cheap;
  data.users.push(...loginAccounts(cheap));
  const file = join(dir, 'initial-data.json');
  writeFileSync(file, JSON.stringify(data));
  return file;
}

const form = { Authorization: basic(), 'Content-Type': 'application/x-www-form-urlencoded' };

interface Side {
  readonly name: 'ES256' | 'HS256';
  readonly child: Child;
  readonly token: string;
  /** The login load's bodies (`logins.ts`). */
  readonly bodies: string;
}

type Spec = (side: Side) => LoadSpec;

/** Best of two interleaved runs per side. */
async function pair(sides: readonly Side[], spec: Spec, what: string, s: BenchSettings) {
  const best = new Map<string, { r: LoadResult; rss: number }>();
  for (const side of sides) await warmUp(spec(side));
  for (let round = 1; round <= 2; round++)
    for (const side of sides) {
      const r = await load({ ...spec(side), duration: s.seconds });
      s.log(`  ${what}, ${side.name} round ${round}: ${r.rps.toFixed(0)} req/s, p99 ${r.p99} ms`);
      const prev = best.get(side.name);
      if (!prev || r.rps > prev.r.rps) best.set(side.name, { r, rss: side.child.rss() });
    }
  const of = (name: string) =>
    best.get(name) ??
    (() => {
      throw new Error('a measurement is missing');
    })();
  return { es: of('ES256'), hs: of('HS256') };
}

const SPECS: readonly { what: string; spec: Spec }[] = [
  {
    what: 'POST /oauth/token, password grant (cost-4 hash)',
    spec: (side) => ({
      url: side.child.url,
      path: '/oauth/token',
      method: 'POST',
      headers: form,
      linesFile: side.bodies,
      linesAs: 'body',
      connections: 8,
    }),
  },
  {
    what: 'GET /app/listAll, bearer token',
    spec: (side) => ({
      url: side.child.url,
      path: '/app/listAll',
      headers: { Authorization: `Bearer ${side.token}` },
      connections: 10,
    }),
  },
  {
    what: 'POST /oauth/introspect (one token, kept once verified)',
    spec: (side) => ({
      url: side.child.url,
      path: '/oauth/introspect',
      method: 'POST',
      headers: form,
      body: new URLSearchParams({ token: side.token }).toString(),
      connections: 10,
    }),
  },
];

export async function signingKeys(report: Report, s: BenchSettings): Promise<void> {
  const esDir = tempDir('keys-es256');
  const hsDir = tempDir('keys-hs256');
  const cost = { SECURITY_PASSWORD_BCRYPT_COST: '4' };
  const es = await startTroupe(esDir, { APP_INITIAL_DATA: cheapLogins(esDir), ...cost });
  const hs = await startTroupe(hsDir, {
    APP_INITIAL_DATA: cheapLogins(hsDir),
    SECURITY_SIGNING_KEY: randomBytes(64).toString('base64url'),
    ...cost,
  });
  try {
    const bodies = loginBodies(esDir);
    const sides: Side[] = [
      { name: 'ES256', child: es, token: (await login(es.url)).access_token, bodies },
      { name: 'HS256', child: hs, token: (await login(hs.url)).access_token, bodies },
    ];
    for (const { what, spec } of SPECS) {
      s.log(`${what}: ES256 key set against an HS256 MAC key`);
      const { es: e, hs: h } = await pair(sides, spec, what, s);
      report.measurements.push(
        row(`${what}, ES256 (new default)`, e.r, e.rss),
        row(`${what}, HS256 (old default)`, h.r, h.rss, 'baseline of claim 12'),
      );
      report.claims.push({
        claim: `12. ${what}: ES256 / HS256`,
        ratio: e.r.rps / h.r.rps,
        op: 'info',
        bound: 0,
        meaning: 'what the published, asymmetric default key costs against the old MAC default',
      });
    }
  } finally {
    await es.stop();
    await hs.stop();
  }
}

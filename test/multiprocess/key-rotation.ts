/**
 * A key rotation while two server processes serve one store, with `npm run keys` run beside them
 * as an operator would: under steady logins at both instances through the switch, no token is
 * refused, by either instance or by third-party verifiers reading the JWKS (jose's
 * createRemoteJWKSet, and Auth0's jwks-rsa with jsonwebtoken); a key taken out is refused by both
 * instances at once, and by the third parties once their JWKS cache expires.
 */
import { spawnSync } from 'node:child_process';
import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import jwt from 'jsonwebtoken';
import { JwksClient } from 'jwks-rsa';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { ChildServer } from '../helpers/child.ts';
import { introspectsActive, listAllStatus, SHARED, startInstances, type Instances } from '../helpers/instances.ts';
import { login } from '../helpers/tokens.ts';

export interface RotationTarget {
  readonly name: string;
  readonly env: () => Promise<Record<string, string>>;
  readonly separateDataDirs: boolean;
  /** How long a change of the key set at one process may go unseen at another (MongoDB: the sync interval). */
  readonly changeBoundMs: number;
  readonly teardown?: () => Promise<void>;
}

/** Seconds a new key is published before it signs: short, so the switch falls inside the test. */
const AHEAD = 5;
const ctx = {} as { instances: Instances; a: ChildServer; b: ChildServer; env: Record<string, string> };

const wait = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
const kidOf = (token: string): string => String(decodeProtectedHeader(token).kid);

function keys(...args: string[]): string {
  const run = spawnSync(process.execPath, ['scripts/keys.ts', ...args], {
    encoding: 'utf8',
    env: { ...process.env, CONFIG_FILE: '/dev/null', DATA_DIR: ctx.instances.dataDir, ...ctx.env },
  });
  assert.is(run.status, 0, run.stderr);
  return run.stdout;
}

/** A third-party resource server: jose over the JWKS, refetching at most every `cooldownMs`. */
function joseVerifier(server: ChildServer, options: { cooldownDuration: number; cacheMaxAge: number }) {
  const jwks = createRemoteJWKSet(new URL(`${server.url}/.well-known/jwks.json`), options);
  return async (token: string): Promise<boolean> =>
    jwtVerify(token, jwks, { issuer: SHARED.SECURITY_JWT_ISSUER, audience: 'troupe-api', typ: 'at+jwt' }).then(
      () => true,
      () => false,
    );
}

/**
 * Auth0's jwks-rsa (keys by kid from the JWKS, each kept `cacheMaxAge`) with node-jsonwebtoken, as
 * an Express or Koa resource server of theirs verifies a bearer token.
 */
function jwksRsaVerifier(server: ChildServer, options: { cooldownDuration: number; cacheMaxAge: number }) {
  const client = new JwksClient({
    jwksUri: `${server.url}/.well-known/jwks.json`,
    cache: true,
    cacheMaxAge: options.cacheMaxAge,
    cacheMaxAgeFallback: 0,
  });
  return async (token: string): Promise<boolean> => {
    try {
      const key = await client.getSigningKey(kidOf(token));
      jwt.verify(token, key.getPublicKey(), {
        issuer: SHARED.SECURITY_JWT_ISSUER,
        audience: 'troupe-api',
        algorithms: ['ES256', 'ES384', 'ES512', 'RS256', 'RS384', 'RS512'],
      });
      return true;
    } catch {
      return false;
    }
  };
}

/** Logs in at `from` again and again until `until`, checking each token at both instances and at the third parties. */
async function steadyLogins(from: ChildServer, until: number, third: ((t: string) => Promise<boolean>)[]) {
  const seen: string[] = [];
  const refused: string[] = [];
  while (Date.now() < until) {
    const token = (await login(from.url)).access_token;
    seen.push(kidOf(token));
    for (const server of [ctx.a, ctx.b]) {
      if ((await listAllStatus(server, token)) !== 200) refused.push(`${server.url} refused ${kidOf(token)}`);
      if (!(await introspectsActive(server, token)))
        refused.push(`${server.url} introspection: inactive ${kidOf(token)}`);
    }
    for (const [i, verify] of third.entries())
      if (!(await verify(token))) refused.push(`third party ${i} refused ${kidOf(token)}`);
  }
  return { seen, refused };
}

export function keyRotationSuite(target: RotationTarget): void {
  const t = suite(`several processes: a key rotation at two instances (${target.name})`);
  t.before(async () => {
    ctx.env = {
      SECURITY_KEYS_PUBLISH_AHEAD_SECONDS: String(AHEAD),
      // Every login below is john.doe's: none may push the first one out of the bound of logins.
      SECURITY_JWT_MAX_LOGINS_PER_USER: '100000',
      ...(await target.env()),
    };
    ctx.instances = await startInstances(2, ctx.env, { separateDataDirs: target.separateDataDirs });
    [ctx.a, ctx.b] = ctx.instances.servers as [ChildServer, ChildServer];
  });
  t.after(async () => {
    await ctx.instances?.close();
    await target.teardown?.();
  });

  t(
    'a rotation under steady logins at both instances refuses no token; the retired key is then refused at once',
    async () => {
      // Third parties refetch an unknown kid's JWKS at most every second here, as they do every 30 s
      // against a publish-ahead of 600 s.
      const cache = { cooldownDuration: 1000, cacheMaxAge: 1000 };
      const third = [joseVerifier(ctx.a, cache), jwksRsaVerifier(ctx.b, cache)];
      const early = (await login(ctx.a.url)).access_token;
      const first = kidOf(early);
      for (const verify of third) assert.ok(await verify(early), 'a third party refused a token before any rotation');
      const rotatedAt = Date.now();
      const [, next = ''] = /^added (\S+)/.exec(keys('rotate')) ?? [];
      await wait(target.changeBoundMs);
      for (const server of [ctx.a, ctx.b]) {
        const res = await fetch(`${server.url}/.well-known/jwks.json`);
        const published = ((await res.json()) as { keys: { kid: string; alg: string }[] }).keys;
        // The access keys, then the id_token lineage's one key.
        assert.equal(published.map((k) => k.kid).slice(0, 2), [first, next]);
        assert.equal(
          published.slice(2).map((k) => k.alg),
          ['RS256'],
        );
        assert.is(res.headers.get('cache-control'), `public, max-age=${AHEAD}`);
      }
      // Logins from before the switch until well after it, however slow the machine is today.
      const until = rotatedAt + (AHEAD + 3) * 1000;
      const runs = await Promise.all([steadyLogins(ctx.a, until, third), steadyLogins(ctx.b, until, [])]);
      const seen = runs.flatMap((r) => r.seen);
      assert.equal(
        runs.flatMap((r) => r.refused),
        [],
      );
      assert.ok(seen.includes(first) && seen.includes(next), `the switch fell outside the logins: ${seen.join(' ')}`);
      for (const server of [ctx.a, ctx.b])
        assert.is(await listAllStatus(server, early), 200, 'a token of the retired key');

      keys('retire', first);
      await wait(target.changeBoundMs);
      for (const server of [ctx.a, ctx.b]) {
        assert.is(await listAllStatus(server, early), 401);
        assert.not.ok(await introspectsActive(server, early));
      }
      await wait(cache.cacheMaxAge + 100);
      for (const verify of third)
        assert.not.ok(await verify(early), 'a third party kept a retired key past its cache age');
      const fresh = (await login(ctx.b.url)).access_token;
      for (const verify of third) assert.ok(await verify(fresh));
    },
  );
  t.run();
}

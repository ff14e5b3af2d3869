import { rmSync } from 'node:fs';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Revocable } from '../../src/security/denylist.ts';
import {
  createTokenSigner,
  createTokenVerifier,
  InvalidTokenError,
  type Principal,
  type TokenRequest,
} from '../../src/security/jwt.ts';
import type { UsableKey } from '../../src/security/key-material.ts';
import { loadConfiguredKey } from '../../src/composition/configured-keys.ts';
import { cachedVerifier, type Verify } from '../../src/security/token-cache.ts';
import { tempDir } from '../helpers/server.ts';

const settings = { issuer: 'http://127.0.0.1:8080', audience: 'troupe-api', validity: 60 };
const request: TokenRequest = {
  username: 'john.doe',
  clientId: 'troupe-client',
  scope: ['read'],
  authorities: ['USER'],
  loginId: 'login-1',
  account: { id: 1, version: 0 },
};
const T0 = Date.UTC(2030, 0, 1);

const ctx = { dir: '', key: undefined as UsableKey | undefined, other: undefined as UsableKey | undefined };
const t = suite('security: cache of verified tokens', ctx);
t.before(async () => {
  ctx.dir = tempDir('troupe-token-cache-');
  ctx.key = await loadConfiguredKey('k'.repeat(32), 256, 'security.signing-key');
  ctx.other = await loadConfiguredKey('o'.repeat(32), 256, 'security.signing-key');
});
t.after(() => rmSync(ctx.dir, { recursive: true, force: true }));

const keyOf = (k: UsableKey | undefined): UsableKey => k ?? (assert.unreachable('no key') as never);

/** A real verifier, counted, over a denylist the test controls. */
function setup(max = 100) {
  const revoked = new Set<string>();
  const isRevoked = async (token: Revocable): Promise<boolean> =>
    revoked.has(token.jti) || revoked.has(token.loginId ?? '');
  const real = createTokenVerifier(
    async (kid) => (kid === keyOf(ctx.key).kid ? ctx.key : undefined),
    settings,
    isRevoked,
  );
  const calls = { n: 0 };
  const counted: Verify = (token, nowMs) => {
    calls.n++;
    return real(token, nowMs);
  };
  const sign = async (at = T0): Promise<string> =>
    (await createTokenSigner(async () => keyOf(ctx.key), settings)(request, at)).token;
  // The cache's check answers at once, as the denylist does while the store has nothing new.
  const listed = (token: Revocable): boolean => revoked.has(token.jti) || revoked.has(token.loginId ?? '');
  return { revoked, calls, sign, verify: cachedVerifier(counted, { max, revokedNow: listed, isRevoked }) };
}

async function refusal(p: Promise<Principal>): Promise<string> {
  try {
    await p;
  } catch (error) {
    assert.instance(error, InvalidTokenError);
    return (error as InvalidTokenError).description;
  }
  return assert.unreachable('the token was accepted') as never;
}

t('a token verified once is answered from the cache, with the same principal', async () => {
  const { calls, sign, verify } = setup();
  const token = await sign();
  const first = await verify(token, T0);
  assert.equal(verify.lookup(token, T0 + 1000), first, 'a known token is answered at once, without a promise');
  assert.equal(await verify(token, T0 + 1000), first);
  assert.is(first.username, 'john.doe');
  assert.is(calls.n, 1);
});

t('an entry never outlives exp: at exp the verifier is asked again, and past the skew refuses', async () => {
  const { calls, sign, verify } = setup();
  const token = await sign();
  await verify(token, T0);
  const exp = T0 + settings.validity * 1000;
  await verify(token, exp); // within the verifier's 30 s of skew: accepted, but by the verifier
  assert.is(calls.n, 2);
  assert.is(await refusal(verify(token, exp + 31_000)), 'Access token expired');
  assert.is(await refusal(verify(token, exp + 60_000)), 'Access token expired');
  assert.is(calls.n, 4);
});

t('a jti revoked after caching is refused on the next request', async () => {
  const { revoked, sign, verify } = setup();
  const token = await sign();
  const principal = await verify(token, T0);
  revoked.add(principal.jti);
  assert.is(await refusal(verify(token, T0 + 1)), 'Access token revoked');
  assert.is(await refusal(verify(token, T0 + 2)), 'Access token revoked');
});

t('lookup: a kept token answered at once, any other not at all, a kept one revoked since forgotten', async () => {
  const { calls, revoked, sign, verify } = setup();
  const token = await sign();
  assert.is(verify.lookup(token, T0), undefined, 'never verified: not known');
  const principal = await verify(token, T0);
  assert.equal(verify.lookup(token, T0 + 1), principal);
  assert.is(calls.n, 1);
  revoked.add(principal.jti);
  assert.is(verify.lookup(token, T0 + 2), undefined, 'revoked since: the verifier answers');
  assert.is(verify.size(), 0, 'forgotten');
  assert.is(await refusal(verify(token, T0 + 2)), 'Access token revoked');
  assert.is(calls.n, 2);
  assert.is(verify.lookup(token, T0 + 3), undefined, 'refused: not kept again');
});

t('a login revoked after caching: its cached token is refused on the next request', async () => {
  const { revoked, sign, verify } = setup();
  const token = await sign();
  const principal = await verify(token, T0);
  assert.is(principal.loginId, 'login-1');
  revoked.add('login-1');
  assert.is(await refusal(verify(token, T0 + 1)), 'Access token revoked');
});

t('a different token is verified on its own: a tampered or foreign-key copy is refused', async () => {
  const { calls, sign, verify } = setup();
  const token = await sign();
  await verify(token, T0);
  const [header, payload, signature] = token.split('.');
  const tampered = `${header}.${payload}.${signature?.slice(0, -2)}${signature?.endsWith('AA') ? 'BB' : 'AA'}`;
  assert.is(await refusal(verify(tampered, T0)), 'Access token signature is invalid');
  const posing = { ...keyOf(ctx.other), kid: keyOf(ctx.key).kid };
  const foreign = (await createTokenSigner(async () => posing, settings)(request, T0)).token;
  assert.is(await refusal(verify(foreign, T0)), 'Access token signature is invalid');
  const unknown = (await createTokenSigner(async () => keyOf(ctx.other), settings)(request, T0)).token;
  assert.is(await refusal(verify(unknown, T0)), 'Access token key is unknown or retired');
  assert.is(calls.n, 4);
});

t('a token that ends as a cached one does but differs before is verified in full, and refused', async () => {
  const { calls, sign, verify } = setup();
  const token = await sign();
  await verify(token, T0);
  assert.ok(verify.lookup(token, T0));
  const [header, payload, signature = ''] = token.split('.');
  // The same signature (so the same last characters) under a payload of the attacker's choosing.
  const forged = `${header}.${Buffer.from(JSON.stringify({ sub: 'admin', scope: 'read write' })).toString('base64url')}.${signature}`;
  assert.is(forged.slice(-32), token.slice(-32));
  assert.is(verify.lookup(forged, T0), undefined);
  assert.match(await refusal(verify(forged, T0)), /invalid|malformed/i);
  assert.is(calls.n, 2);
  assert.ok(payload);
});

t('a revocation check that must read the store first: lookup leaves it to verify, which awaits it', async () => {
  const { sign, calls } = setup();
  const token = await sign();
  let revokedNow = false;
  const real = createTokenVerifier(
    async (kid) => (kid === keyOf(ctx.key).kid ? ctx.key : undefined),
    settings,
    async () => revokedNow,
  );
  const verify = cachedVerifier(
    (t, at) => {
      calls.n++;
      return real(t, at);
    },
    { max: 10, revokedNow: () => undefined, isRevoked: async () => revokedNow },
  );
  await verify(token, T0);
  assert.is(verify.lookup(token, T0 + 1), undefined, 'a read is needed: not answered at once');
  assert.is(verify.size(), 1, 'still kept');
  assert.is((await verify(token, T0 + 1)).username, 'john.doe');
  assert.is(calls.n, 1, 'answered from the cache once the check was read');
  revokedNow = true;
  assert.is(await refusal(verify(token, T0 + 2)), 'Access token revoked');
});

t('a refused token is not cached as valid', async () => {
  const { calls, sign, verify } = setup();
  const early = await sign(T0 + 120_000); // iat 2 minutes ahead: refused now, acceptable later
  assert.match(await refusal(verify(early, T0)), /"iat"/);
  assert.match(await refusal(verify(early, T0)), /"iat"/);
  assert.is(calls.n, 2);
  assert.is(verify.size(), 0);
});

t('a clock set back before the verification goes to the verifier again', async () => {
  const { calls, sign, verify } = setup();
  const token = await sign(T0 + 120_000);
  await verify(token, T0 + 120_000);
  assert.match(await refusal(verify(token, T0)), /"iat"/);
  assert.is(calls.n, 2);
});

t('the bound is respected, and the least recently used token goes first', async () => {
  const { calls, sign, verify } = setup(3);
  const tokens = await Promise.all([0, 1, 2, 3].map((i) => sign(T0 + i)));
  for (const token of tokens.slice(0, 3)) await verify(token, T0 + 10);
  await verify(tokens[0] ?? '', T0 + 10); // 0 is now the most recent; 1 is the oldest
  await verify(tokens[3] ?? '', T0 + 10); // evicts 1
  assert.is(verify.size(), 3);
  assert.is(calls.n, 4);
  await verify(tokens[0] ?? '', T0 + 10);
  assert.is(calls.n, 4);
  await verify(tokens[1] ?? '', T0 + 10);
  assert.is(calls.n, 5);
  assert.is(verify.size(), 3);
});

t('a bound below one is refused', () => {
  assert.throws(
    () =>
      cachedVerifier(async () => assert.unreachable() as never, {
        max: 0,
        revokedNow: () => false,
        isRevoked: async () => false,
      }),
    /positive integer/,
  );
});

t.run();

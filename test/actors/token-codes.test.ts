/**
 * Authorization codes in TokenActor: their lifetime by the actor's clock, and single use across
 * processes (two TokenActors on one SQLite file stand for two processes).
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import * as Token from '../../actors/token/protocol.ts';
import { ask } from '../../src/messaging/ask.ts';
import type { Client } from '../../src/security/clients.ts';
import { s256 } from '../../src/security/pkce.ts';
import { sqliteAccountStore } from '../../src/stores/account-store.sqlite.ts';
import { CLIENT, processesOnOneFile, type TokenActorSetup } from '../helpers/token-actor.ts';

const t = suite('TokenActor: authorization codes');
const startProcess = processesOnOneFile(t, 'codes');

const WEB: Client = {
  ...CLIENT,
  clientId: 'web-app',
  grantTypes: ['authorization_code', 'refresh_token'],
  redirectUris: ['https://app.example/callback'],
};
const VERIFIER = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk';
const clock = { now: Date.now() };

async function aProcess(): Promise<TokenActorSetup> {
  return startProcess({ clients: [CLIENT, WEB], now: () => clock.now });
}

async function codeOf(p: TokenActorSetup): Promise<string> {
  const reply = await ask(
    p.token,
    Token.authorize({
      clientId: WEB.clientId,
      redirectUri: 'https://app.example/callback',
      username: 'john.doe',
      password: 'john-password',
      codeChallenge: s256(VERIFIER),
    }),
    5000,
  );
  if (!reply.ok) throw new Error(reply.code);
  if (!('code' in reply.value)) throw new Error('consent asked of a first-party client');
  return reply.value.code;
}

const redeem = (p: TokenActorSetup, code: string) =>
  ask(
    p.token,
    Token.redeemCode({
      clientId: WEB.clientId,
      code,
      redirectUri: 'https://app.example/callback',
      codeVerifier: VERIFIER,
    }),
    5000,
  );

t('a code redeems within 60 s, and not after', async () => {
  const p = await aProcess();
  const fresh = await codeOf(p);
  clock.now += 59_000;
  assert.ok((await redeem(p, fresh)).ok);
  const late = await codeOf(p);
  clock.now += 60_000;
  const reply = await redeem(p, late);
  assert.is(reply.ok ? 'ok' : reply.code, 'grant.invalid');
  assert.match(reply.ok ? '' : reply.message, /expired/);
});

t('an account disabled between sign-in and redemption gets no tokens from its code', async () => {
  const p = await aProcess();
  const code = await codeOf(p);
  const accounts = sqliteAccountStore(p.db);
  const john = await accounts.findByUsername('john.doe');
  await accounts.updateAccount(john?.id ?? -1, { enabled: false }, 'ADMIN', 1);
  const reply = await redeem(p, code);
  assert.is(reply.ok ? 'ok' : reply.code, 'grant.invalid');
  assert.match(reply.ok ? '' : reply.message, /disabled/);
});

const signIn = (p: TokenActorSetup, password: string) =>
  ask(
    p.token,
    Token.authorize({
      clientId: WEB.clientId,
      redirectUri: 'https://app.example/callback',
      username: 'john.doe',
      password,
      codeChallenge: s256(VERIFIER),
    }),
    5000,
  );

t('a wrong password gives no code', async () => {
  const reply = await signIn(await aProcess(), 'wrong-but-secret-password');
  assert.is(reply.ok ? 'ok' : reply.code, 'grant.invalid');
});

t('a password over 72 bytes gives no code: request.invalid, as the password grant answers', async () => {
  const reply = await signIn(await aProcess(), `john-password${'x'.repeat(60)}`);
  assert.equal(reply, {
    ok: false,
    code: 'request.invalid',
    message: 'Passwords longer than 72 bytes are not accepted',
  });
});

t('two processes redeeming one code at once: one gets tokens, then they are revoked by the replay', async () => {
  const [a, b] = [await aProcess(), await aProcess()];
  const code = await codeOf(a);
  const replies = await Promise.all([redeem(a, code), redeem(b, code)]);
  const granted = replies.filter((r) => r.ok);
  assert.is(granted.length, 1);
  const first = granted[0];
  if (!first?.ok) return assert.unreachable('no grant');
  const tokens = first.value;
  try {
    await a.verify(tokens.accessToken, clock.now);
    assert.unreachable('the access token of a replayed code still verifies');
  } catch (error) {
    assert.match((error as Error).message, /revoked/);
  }
});

t.run();

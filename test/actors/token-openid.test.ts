/**
 * OpenID Connect in TokenActor: the `nonce` of an authorization request and the time the account's
 * password matched travel from the sign-in (and the consent step after it) into the code, and from
 * the code into the login's records, which keep that time through every rotation.
 */
import { randomBytes } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import * as Token from '../../actors/token/protocol.ts';
import { startSystem, stopSystem, type ActorSystem } from '../../src/messaging/nact.ts';
import type { Client } from '../../src/security/clients.ts';
import { createPasswordHasher, type PasswordHasher } from '../../src/security/passwords.ts';
import { s256 } from '../../src/security/pkce.ts';
import { hashToken } from '../../src/security/refresh-tokens.ts';
import { sqliteAuthorizationCodeStore } from '../../src/stores/authorization-code-store.sqlite.ts';
import { sqliteRefreshTokenStore } from '../../src/stores/refresh-token-store.sqlite.ts';
import { CLIENT, okValue, sendToken, startTokenActor, type TokenActorSetup } from '../helpers/token-actor.ts';

const REDIRECT = 'https://app.example/callback';
/** A first-party client that may ask `openid`. */
const WEB: Client = {
  ...CLIENT,
  clientId: 'web-app',
  grantTypes: ['authorization_code', 'refresh_token'],
  scopes: ['openid', 'read', 'write'],
  redirectUris: [REDIRECT],
};
/** A third-party client: asks consent first. */
const PARTNER: Client = { ...WEB, clientId: 'partner', consent: 'explicit' };
/** The original client, with `openid` among its scopes: its password logins are no OpenID logins. */
const PASSWORD_CLIENT: Client = { ...CLIENT, scopes: ['openid', 'read', 'write'] };
const VERIFIER = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk';
const T0 = Date.UTC(2030, 0, 1);

const ctx = {} as { system: ActorSystem; hasher: PasswordHasher; setup: TokenActorSetup; clock: { now: number } };
const t = suite('TokenActor: OpenID Connect', ctx);

t.before.each(async () => {
  ctx.hasher = createPasswordHasher(2);
  ctx.system = startSystem('token-openid-test');
  ctx.clock = { now: T0 };
  ctx.setup = await startTokenActor(ctx.system, {
    hasher: ctx.hasher,
    clients: [PASSWORD_CLIENT, WEB, PARTNER],
    now: () => ctx.clock.now,
  });
});
t.after.each(async () => {
  stopSystem(ctx.system);
  ctx.setup.db.close();
  await ctx.hasher.close();
});

const seconds = (ms: number): number => Math.floor(ms / 1000);

const signIn = (client: Client, nonce?: string) =>
  sendToken(
    ctx.setup,
    Token.authorize({
      clientId: client.clientId,
      redirectUri: REDIRECT,
      username: 'john.doe',
      password: 'john-password',
      scope: ['openid', 'read'],
      codeChallenge: s256(VERIFIER),
      nonce,
    }),
  );

/** The code of a sign-in that needs no consent. */
async function codeOf(client: Client, nonce?: string): Promise<string> {
  const reply = await signIn(client, nonce);
  if ('retryAfter' in reply) return assert.unreachable('throttled') as never;
  const value = okValue(reply);
  if (!('code' in value)) return assert.unreachable('consent asked of a first-party client') as never;
  return value.code;
}

/** The stored record of a code, read by spending it. */
const codeRecord = (code: string) =>
  sqliteAuthorizationCodeStore(ctx.setup.db).spend(hashToken(code), seconds(ctx.clock.now));

const redeem = (code: string) =>
  sendToken(
    ctx.setup,
    Token.redeemCode({ clientId: WEB.clientId, code, redirectUri: REDIRECT, codeVerifier: VERIFIER }),
  );

const loginRecord = (refreshToken: string | undefined) =>
  sqliteRefreshTokenStore(ctx.setup.db).find(hashToken(refreshToken ?? ''));

t('Authorize › the code keeps the nonce and the time the password matched', async () => {
  const code = await codeOf(WEB, 'n-0S6_WzA2Mj');
  const record = await codeRecord(code);
  assert.is(record?.nonce, 'n-0S6_WzA2Mj');
  assert.is(record?.authTime, seconds(T0));
});

t('Authorize › without a nonce the code keeps none', async () => {
  const record = await codeRecord(await codeOf(WEB));
  assert.is(record?.nonce, null);
  assert.is(record?.authTime, seconds(T0));
});

t("AuthorizeConsented › the code keeps the request's nonce and the sign-in's time, not the consent's", async () => {
  const reply = await signIn(PARTNER, 'n-consent');
  if ('retryAfter' in reply) return assert.unreachable('throttled');
  const value = okValue(reply);
  if (!('consent' in value)) return assert.unreachable('a code without consent');
  assert.is(value.consent.authTime, seconds(T0), 'the consent page carries the time of the sign-in');
  ctx.clock.now += 90_000;
  const { code } = okValue(
    await sendToken(
      ctx.setup,
      Token.authorizeConsented({
        clientId: PARTNER.clientId,
        redirectUri: REDIRECT,
        scope: ['openid', 'read'],
        codeChallenge: s256(VERIFIER),
        nonce: 'n-consent',
        accountId: value.consent.accountId,
        accountVersion: value.consent.accountVersion,
        authTime: value.consent.authTime,
        ticket: { id: randomBytes(16).toString('base64url'), expiresAt: seconds(ctx.clock.now) + 300 },
      }),
    ),
  );
  const record = await codeRecord(code);
  assert.is(record?.nonce, 'n-consent');
  assert.is(record?.authTime, seconds(T0));
});

t("authorization_code › the login keeps the code's auth_time through its rotations", async () => {
  const code = await codeOf(WEB, 'n-1');
  ctx.clock.now += 20_000;
  const tokens = okValue(await redeem(code));
  assert.is((await loginRecord(tokens.refreshToken))?.authTime, seconds(T0));
  ctx.clock.now += 300_000;
  const refreshed = okValue(
    await sendToken(ctx.setup, Token.refresh({ clientId: WEB.clientId, refreshToken: tokens.refreshToken ?? '' })),
  );
  assert.is((await loginRecord(refreshed.refreshToken))?.authTime, seconds(T0));
});

t('password › a login of the password grant keeps no auth_time, whatever its scope', async () => {
  const reply = await sendToken(
    ctx.setup,
    Token.issueToken({
      clientId: PASSWORD_CLIENT.clientId,
      username: 'john.doe',
      password: 'john-password',
      scope: ['openid', 'read'],
    }),
  );
  if ('retryAfter' in reply) return assert.unreachable('throttled');
  const tokens = okValue(reply);
  assert.is((await loginRecord(tokens.refreshToken))?.authTime, null);
});

t.run();

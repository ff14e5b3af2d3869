/**
 * OpenID Connect in TokenActor: the `nonce` of an authorization request and the time the account's
 * password matched travel from the sign-in (and the consent step after it) into the code, and from
 * the code into the login's records, which keep that time through every rotation. A code whose
 * scope has `openid` redeems with an id_token, signed by the id_token key, and each refresh of its
 * login with a fresh one naming the original sign-in; no other grant has one.
 */
import { createHash } from 'node:crypto';
import { randomBytes } from 'node:crypto';
import { decodeProtectedHeader, jwtVerify, type JWTPayload } from 'jose';
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
import {
  CLIENT,
  ID_TOKEN_KEY,
  okValue,
  sendToken,
  SETTINGS,
  startTokenActor,
  type TokenActorSetup,
} from '../helpers/token-actor.ts';

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

const redeem = (code: string, client: Client = WEB) =>
  sendToken(
    ctx.setup,
    Token.redeemCode({ clientId: client.clientId, code, redirectUri: REDIRECT, codeVerifier: VERIFIER }),
  );

/** An id_token's claims, once its signature (by the id_token key, RS256), issuer, audience and times hold. */
async function verified(idToken: string | undefined, client: Client = WEB): Promise<JWTPayload> {
  if (idToken === undefined) return assert.unreachable('no id_token') as never;
  const key = await ID_TOKEN_KEY();
  assert.equal(decodeProtectedHeader(idToken), { alg: 'RS256', typ: 'JWT', kid: key.kid });
  const { payload } = await jwtVerify(idToken, key.verifyKey, {
    algorithms: ['RS256'],
    issuer: SETTINGS.issuer,
    audience: client.clientId,
    typ: 'JWT',
    currentDate: new Date(ctx.clock.now),
    requiredClaims: ['sub', 'exp', 'iat', 'auth_time', 'at_hash'],
  });
  return payload;
}

/** Core §3.1.3.6 for RS256: the left half of the access token's SHA-256, base64url. */
const atHashOf = (accessToken: string): string =>
  createHash('sha256').update(accessToken, 'ascii').digest().subarray(0, 16).toString('base64url');

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
  ctx.clock.now += 5_000;
  const tokens = okValue(await redeem(code, PARTNER));
  const claims = await verified(tokens.idToken, PARTNER);
  assert.is(claims['auth_time'], seconds(T0));
  assert.is(claims['nonce'], 'n-consent');
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

t('authorization_code › with openid: an id_token of every claim, signed RS256 by the id_token key', async () => {
  const code = await codeOf(WEB, 'n-0S6_WzA2Mj');
  ctx.clock.now += 20_000;
  const tokens = okValue(await redeem(code));
  const claims = await verified(tokens.idToken);
  const account = claims.sub?.replace(/^account:/, '');
  assert.equal(claims, {
    iss: SETTINGS.issuer,
    sub: `account:${account ?? ''}`,
    aud: WEB.clientId,
    iat: seconds(ctx.clock.now),
    exp: seconds(ctx.clock.now) + SETTINGS.validity,
    auth_time: seconds(T0),
    nonce: 'n-0S6_WzA2Mj',
    at_hash: atHashOf(tokens.accessToken),
  });
  const access = JSON.parse(Buffer.from(tokens.accessToken.split('.')[1] ?? '', 'base64url').toString()) as {
    sub: string;
  };
  assert.is(claims.sub, access.sub, "the access token's subject");
  assert.is.not(decodeProtectedHeader(tokens.accessToken).kid, (await ID_TOKEN_KEY()).kid);
});

t('authorization_code › with openid and no nonce: an id_token without one', async () => {
  const tokens = okValue(await redeem(await codeOf(WEB)));
  const claims = await verified(tokens.idToken);
  assert.not.ok('nonce' in claims);
});

t('authorization_code › without openid in the scope: no id_token', async () => {
  const reply = await sendToken(
    ctx.setup,
    Token.authorize({
      clientId: WEB.clientId,
      redirectUri: REDIRECT,
      username: 'john.doe',
      password: 'john-password',
      scope: ['read'],
      codeChallenge: s256(VERIFIER),
      nonce: 'n-ignored',
    }),
  );
  if ('retryAfter' in reply) return assert.unreachable('throttled');
  const value = okValue(reply);
  if (!('code' in value)) return assert.unreachable('consent asked');
  const tokens = okValue(await redeem(value.code));
  assert.is(tokens.idToken, undefined);
  assert.not.ok('idToken' in tokens);
});

const refresh = (refreshToken: string | undefined, scope?: readonly string[]) =>
  sendToken(ctx.setup, Token.refresh({ clientId: WEB.clientId, refreshToken: refreshToken ?? '', scope }));

t(
  'refresh_token › an OpenID login: a fresh id_token, its sub, aud and auth_time, a new iat and exp, no nonce',
  async () => {
    const code = await codeOf(WEB, 'n-login');
    ctx.clock.now += 20_000;
    const first = okValue(await redeem(code));
    const original = await verified(first.idToken);
    ctx.clock.now += 120_000;
    const refreshed = okValue(await refresh(first.refreshToken));
    const claims = await verified(refreshed.idToken);
    assert.equal(claims, {
      iss: SETTINGS.issuer,
      sub: original.sub,
      aud: WEB.clientId,
      iat: seconds(ctx.clock.now),
      exp: seconds(ctx.clock.now) + SETTINGS.validity,
      auth_time: seconds(T0),
      at_hash: atHashOf(refreshed.accessToken),
    });
    ctx.clock.now += 60_000;
    const again = okValue(await refresh(refreshed.refreshToken));
    assert.is((await verified(again.idToken))['auth_time'], seconds(T0), 'through every rotation');
  },
);

t('refresh_token › narrowed to a scope without openid: no id_token', async () => {
  const first = okValue(await redeem(await codeOf(WEB)));
  const narrowed = okValue(await refresh(first.refreshToken, ['read']));
  assert.equal(narrowed.scope, ['read']);
  assert.not.ok('idToken' in narrowed);
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
  assert.is(tokens.idToken, undefined, 'no id_token from the password grant, openid or not');
  const refreshed = okValue(
    await sendToken(
      ctx.setup,
      Token.refresh({ clientId: PASSWORD_CLIENT.clientId, refreshToken: tokens.refreshToken ?? '' }),
    ),
  );
  assert.equal(refreshed.scope, ['openid', 'read']);
  assert.not.ok('idToken' in refreshed, 'nor from a refresh of its login');
});

t.run();

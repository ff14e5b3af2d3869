/**
 * Codes without PKCE in TokenActor: only a confidential client registered with `pkceRequired: false`
 * gets one, in an OpenID request with a nonce (RFC 9700 §2.1.1), whichever message asks; such a
 * code redeems without a verifier and refuses one (RFC 9700 §4.8.2), and a code with a challenge
 * still needs its verifier.
 */
import { randomBytes } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import * as Token from '../../actors/token/protocol.ts';
import { startSystem, stopSystem, type ActorSystem } from '../../src/messaging/nact.ts';
import type { Client } from '../../src/security/clients.ts';
import { createPasswordHasher, type PasswordHasher } from '../../src/security/passwords.ts';
import { PKCE_REQUIRED, s256 } from '../../src/security/pkce.ts';
import { hashToken } from '../../src/security/refresh-tokens.ts';
import { sqliteAuthorizationCodeStore } from '../../src/stores/authorization-code-store.sqlite.ts';
import { CLIENT, okValue, sendToken, startTokenActor, type TokenActorSetup } from '../helpers/token-actor.ts';

const REDIRECT = 'https://app.example/callback';
/** A first-party confidential client that may ask `openid`, PKCE required (as registered by default). */
const WEB: Client = {
  ...CLIENT,
  clientId: 'web-app',
  grantTypes: ['authorization_code', 'refresh_token'],
  scopes: ['openid', 'read', 'write'],
  redirectUris: [REDIRECT],
};
/** The same, registered with `pkce_required: false`. */
const NO_PKCE: Client = { ...WEB, clientId: 'nonce-app', pkceRequired: false };
/** A public client that says so too (the clients file refuses it): still PKCE required. */
const PUBLIC: Client = { ...NO_PKCE, clientId: 'spa', secretHash: undefined, authMethod: 'none' };
const VERIFIER = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk';
const NONCE = 'n-0S6_WzA2Mj';

const ctx = {} as { system: ActorSystem; hasher: PasswordHasher; setup: TokenActorSetup };
const t = suite('TokenActor: codes without PKCE (pkce_required: false)', ctx);

t.before(async () => {
  ctx.hasher = createPasswordHasher(2);
  ctx.system = startSystem('token-without-pkce-test');
  ctx.setup = await startTokenActor(ctx.system, { hasher: ctx.hasher, clients: [CLIENT, WEB, NO_PKCE, PUBLIC] });
});
t.after(async () => {
  stopSystem(ctx.system);
  ctx.setup.db.close();
  await ctx.hasher.close();
});

const signIn = (client: Client, over: { scope?: string[]; nonce?: string; password?: string } = {}) =>
  sendToken(
    ctx.setup,
    Token.authorize({
      clientId: client.clientId,
      redirectUri: REDIRECT,
      username: 'john.doe',
      password: over.password ?? 'john-password',
      scope: over.scope ?? ['openid', 'read'],
      nonce: 'nonce' in over ? over.nonce : NONCE,
    }),
  );

/** The failure of a reply, as `code: message`; `ok` when it succeeded. */
const outcome = (reply: { ok: boolean; code?: string; message?: string } | { retryAfter: number }): string =>
  'retryAfter' in reply ? 'throttled' : reply.ok ? 'ok' : `${reply.code}: ${reply.message}`;

async function codeOf(client: Client): Promise<string> {
  const reply = await signIn(client);
  if ('retryAfter' in reply) return assert.unreachable('throttled') as never;
  const value = okValue(reply);
  if (!('code' in value)) return assert.unreachable('consent asked of a first-party client') as never;
  return value.code;
}

const redeem = (code: string, codeVerifier?: string) =>
  sendToken(ctx.setup, Token.redeemCode({ clientId: NO_PKCE.clientId, code, redirectUri: REDIRECT, codeVerifier }));

const REFUSED = `request.invalid: ${PKCE_REQUIRED}`;

t('Authorize › openid and a nonce without a challenge: a code that keeps no challenge', async () => {
  const code = await codeOf(NO_PKCE);
  const record = await sqliteAuthorizationCodeStore(ctx.setup.db).spend(hashToken(code), Math.floor(Date.now() / 1000));
  assert.is(record?.codeChallenge, null);
  assert.is(record?.nonce, NONCE);
});

t('authorization_code › a code without a challenge redeems without a verifier, with an id_token', async () => {
  const tokens = okValue(await redeem(await codeOf(NO_PKCE)));
  assert.type(tokens.idToken, 'string');
});

t('authorization_code › a code without a challenge refuses a verifier (a PKCE downgrade)', async () => {
  assert.is(
    outcome(await redeem(await codeOf(NO_PKCE), VERIFIER)),
    'grant.invalid: code_verifier sent for a code issued without a challenge',
  );
});

t('authorization_code › a code with a challenge still needs its verifier', async () => {
  const signedIn = await sendToken(
    ctx.setup,
    Token.authorize({
      clientId: NO_PKCE.clientId,
      redirectUri: REDIRECT,
      username: 'john.doe',
      password: 'john-password',
      scope: ['openid', 'read'],
      codeChallenge: s256(VERIFIER),
      nonce: NONCE,
    }),
  );
  if ('retryAfter' in signedIn) return assert.unreachable('throttled');
  const value = okValue(signedIn);
  if (!('code' in value)) return assert.unreachable('consent asked');
  assert.is(
    outcome(await redeem(value.code)),
    'grant.invalid: Missing code_verifier: the code was issued with a challenge',
  );
});

t('Authorize › without a challenge: no nonce, no openid, or a client that needs PKCE → request.invalid', async () => {
  assert.is(outcome(await signIn(NO_PKCE, { nonce: undefined })), REFUSED, 'no nonce');
  assert.is(outcome(await signIn(NO_PKCE, { scope: ['read'] })), REFUSED, 'no openid');
  assert.is(outcome(await signIn(WEB)), REFUSED, 'PKCE required by default');
  assert.is(outcome(await signIn(PUBLIC)), REFUSED, 'a public client');
});

t('Authorize › the challenge is refused before the password is checked', async () => {
  assert.is(outcome(await signIn(WEB, { password: 'not-the-password' })), REFUSED);
});

t(
  'AuthorizeSignedIn and AuthorizeConsented › without a challenge for a client that needs PKCE → request.invalid',
  async () => {
    const signedIn = await sendToken(
      ctx.setup,
      Token.authorizeSignedIn({
        clientId: WEB.clientId,
        redirectUri: REDIRECT,
        scope: ['openid'],
        nonce: NONCE,
        session: 'x',
      }),
    );
    assert.is(outcome(signedIn), REFUSED);
    const consented = await sendToken(
      ctx.setup,
      Token.authorizeConsented({
        clientId: WEB.clientId,
        redirectUri: REDIRECT,
        scope: ['openid'],
        nonce: NONCE,
        accountId: 2,
        accountVersion: 0,
        authTime: Math.floor(Date.now() / 1000),
        ticket: { id: randomBytes(16).toString('base64url'), expiresAt: Math.floor(Date.now() / 1000) + 300 },
      }),
    );
    assert.is(outcome(consented), REFUSED);
  },
);

t.run();

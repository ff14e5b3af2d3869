/**
 * Consents in TokenActor: a sign-in to a client that asks consent answers `ConsentNeeded` until the
 * account allowed every scope; `AuthorizeConsented` records the consent and issues a code only for
 * the account as it was when its password matched; a consent page's ticket decides once (Allow or
 * Deny); a withdrawal ends the logins of the client, with or without refresh tokens.
 */
import { randomBytes } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import * as Accounts from '../../actors/accounts/protocol.ts';
import * as Token from '../../actors/token/protocol.ts';
import { startSystem, stopSystem, type ActorSystem } from '../../src/messaging/nact.ts';
import type { Client } from '../../src/security/clients.ts';
import { createPasswordHasher, type PasswordHasher } from '../../src/security/passwords.ts';
import { s256 } from '../../src/security/pkce.ts';
import { rmSync } from 'node:fs';
import { WITHDRAWN } from '../../actors/token/grants/authorization-code.ts';
import { gate, holdingStores, type Holds } from '../helpers/gate.ts';
import { tempDir } from '../helpers/server.ts';
import {
  administer,
  CLIENT,
  okValue,
  sendToken,
  startTokenActor,
  type TokenActorSetup,
} from '../helpers/token-actor.ts';

const REDIRECT = 'https://partner.example/callback';
const PARTNER: Client = {
  ...CLIENT,
  clientId: 'partner',
  consent: 'explicit',
  grantTypes: ['authorization_code', 'refresh_token'],
  redirectUris: [REDIRECT],
};
/** A third-party client without the refresh_token grant: its logins have access tokens only. */
const WIDGET: Client = { ...PARTNER, clientId: 'widget', grantTypes: ['authorization_code', 'password'] };
/** The service's own application: never asks consent. */
const OWN: Client = { ...PARTNER, clientId: 'own-app', consent: 'implicit' };
const VERIFIER = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk';

/** A consent page's ticket, as the page would carry it. */
const newTicket = (): Token.ConsentTicket => ({
  id: randomBytes(16).toString('base64url'),
  expiresAt: Math.floor(Date.now() / 1000) + 300,
});

const ctx = {} as { system: ActorSystem; hasher: PasswordHasher; setup: TokenActorSetup };
const t = suite('TokenActor: consents', ctx);

t.before.each(async () => {
  ctx.hasher = createPasswordHasher(2);
  ctx.system = startSystem('token-consent-test');
  ctx.setup = await startTokenActor(ctx.system, { hasher: ctx.hasher, clients: [CLIENT, PARTNER, WIDGET, OWN] });
});
t.after.each(async () => {
  stopSystem(ctx.system);
  ctx.setup.db.close();
  await ctx.hasher.close();
});

const signIn = (scope?: readonly string[], client: Client = PARTNER, askConsent?: boolean) =>
  sendToken(
    ctx.setup,
    Token.authorize({
      clientId: client.clientId,
      redirectUri: REDIRECT,
      username: 'john.doe',
      password: 'john-password',
      scope,
      codeChallenge: s256(VERIFIER),
      askConsent,
    }),
  );

/** The consent a sign-in asks for; fails when it answered a code. */
async function asked(scope?: readonly string[], client: Client = PARTNER): Promise<Token.ConsentNeeded['consent']> {
  const reply = await signIn(scope, client);
  if ('retryAfter' in reply) return assert.unreachable('throttled') as never;
  const value = okValue(reply);
  if (!('consent' in value)) return assert.unreachable('a code without consent') as never;
  return value.consent;
}

const consented = (
  consent: Token.ConsentNeeded['consent'],
  scope?: readonly string[],
  ticket: Token.ConsentTicket = newTicket(),
  client: Client = PARTNER,
) =>
  sendToken(
    ctx.setup,
    Token.authorizeConsented({
      clientId: client.clientId,
      redirectUri: REDIRECT,
      scope,
      codeChallenge: s256(VERIFIER),
      accountId: consent.accountId,
      accountVersion: consent.accountVersion,
      authTime: consent.authTime,
      ticket,
    }),
  );

const redeem = (code: string, client: Client = PARTNER) =>
  sendToken(
    ctx.setup,
    Token.redeemCode({ clientId: client.clientId, code, redirectUri: REDIRECT, codeVerifier: VERIFIER }),
  );

t('asked until allowed, asked again for more; a consent makes a code that redeems', async () => {
  const first = await asked(['read']);
  assert.equal(first.scopes, ['read']);
  assert.equal(first.granted, []);
  assert.is(first.username, 'john.doe');
  const { code, username } = okValue(await consented(first, ['read']));
  assert.is(username, 'john.doe');
  assert.equal(okValue(await redeem(code)).scope, ['read']);
  const again = await signIn(['read']);
  assert.ok('ok' in again && again.ok && 'code' in again.value, 'remembered');
  const wider = await asked();
  assert.equal(wider.scopes, ['read', 'write']);
  assert.equal(wider.granted, ['read']);
  assert.equal(
    okValue(await sendToken(ctx.setup, Token.listConsents({ accountId: first.accountId }))).map((c) => c.scopes),
    [['read']],
  );
});

t(
  'askConsent (prompt=consent): asked though every scope was allowed, all marked granted; not of a first-party client',
  async () => {
    okValue(await consented(await asked(['read', 'write']), ['read', 'write']));
    const again = await signIn(['read'], PARTNER, true);
    if ('retryAfter' in again) return assert.unreachable('throttled');
    const value = okValue(again);
    assert.ok('consent' in value, 'the consent asked again');
    assert.equal(value.consent.scopes, ['read']);
    assert.equal(value.consent.granted, ['read']);
    const firstParty = await signIn(['read'], OWN, true);
    assert.ok('ok' in firstParty && firstParty.ok && 'code' in firstParty.value, 'a first-party client: the code');
  },
);

t('AuthorizeConsented refuses an account changed since its password matched, and records nothing', async () => {
  const consent = await asked(['read']);
  okValue(
    await administer(
      ctx.setup,
      Accounts.setPassword({ id: consent.accountId, password: 'new-password-1', actor: 'admin' }),
    ),
  );
  const reply = await consented(consent, ['read']);
  assert.is(reply.ok ? 'ok' : reply.code, 'grant.invalid');
  assert.equal(okValue(await sendToken(ctx.setup, Token.listConsents({ accountId: consent.accountId }))), []);
  const unknown = await consented({ ...consent, accountId: 999_999 }, ['read']);
  assert.is(unknown.ok ? 'ok' : unknown.code, 'grant.invalid');
  const widerThanClient = await consented(consent, ['admin']);
  assert.is(widerThanClient.ok ? 'ok' : widerThanClient.code, 'scope.invalid');
});

t('a withdrawal ends the logins of the client; unknown ones are refused', async () => {
  const consent = await asked(['read']);
  const tokens = okValue(await redeem(okValue(await consented(consent, ['read'])).code));
  const withdrawn = okValue(
    await sendToken(ctx.setup, Token.withdrawConsent({ accountId: consent.accountId, clientId: PARTNER.clientId })),
  );
  assert.is(withdrawn.username, 'john.doe');
  const refreshed = await sendToken(
    ctx.setup,
    Token.refresh({ clientId: PARTNER.clientId, refreshToken: tokens.refreshToken ?? '' }),
  );
  assert.is('ok' in refreshed && !refreshed.ok ? refreshed.code : 'ok', 'grant.invalid');
  const again = await sendToken(
    ctx.setup,
    Token.withdrawConsent({ accountId: consent.accountId, clientId: PARTNER.clientId }),
  );
  assert.is(again.ok ? 'ok' : again.code, 'consent.not_found');
  const nobody = await sendToken(ctx.setup, Token.withdrawConsent({ accountId: 999_999, clientId: PARTNER.clientId }));
  assert.is(nobody.ok ? 'ok' : nobody.code, 'account.not_found');
  const none = await sendToken(ctx.setup, Token.listConsents({ accountId: 999_999 }));
  assert.is(none.ok ? 'ok' : none.code, 'account.not_found');
});

t('a ticket decides once: Allow again, after a withdrawal too, or Deny after it → consent.ticket_spent', async () => {
  const consent = await asked(['read']);
  const ticket = newTicket();
  okValue(await consented(consent, ['read'], ticket));
  const again = await consented(consent, ['read'], ticket);
  assert.is(again.ok ? 'ok' : again.code, 'consent.ticket_spent');
  okValue(
    await sendToken(ctx.setup, Token.withdrawConsent({ accountId: consent.accountId, clientId: PARTNER.clientId })),
  );
  const afterWithdrawal = await consented(consent, ['read'], ticket);
  assert.is(afterWithdrawal.ok ? 'ok' : afterWithdrawal.code, 'consent.ticket_spent');
  assert.equal(
    okValue(await sendToken(ctx.setup, Token.listConsents({ accountId: consent.accountId }))),
    [],
    'not granted again',
  );
  const deny = await sendToken(ctx.setup, Token.denyConsent({ ticket }));
  assert.is(deny.ok ? 'ok' : deny.code, 'consent.ticket_spent');
  const denied = newTicket();
  assert.equal(await sendToken(ctx.setup, Token.denyConsent({ ticket: denied })), { ok: true, value: null });
  const allowAfterDeny = await consented(consent, ['read'], denied);
  assert.is(allowAfterDeny.ok ? 'ok' : allowAfterDeny.code, 'consent.ticket_spent');
});

t('a login of a client without refresh_token is listed, and a withdrawal refuses its access token', async () => {
  const consent = await asked(['read'], WIDGET);
  const { code } = okValue(await consented(consent, ['read'], newTicket(), WIDGET));
  const tokens = okValue(await redeem(code, WIDGET));
  assert.is(tokens.refreshToken, undefined);
  const principal = await ctx.setup.verify(tokens.accessToken);
  const listed = okValue(await administer(ctx.setup, Accounts.listLogins({ id: consent.accountId })));
  assert.equal(
    listed.map((l) => [l.sid, l.clientId, l.expiresAt]),
    [[principal.loginId, WIDGET.clientId, new Date(principal.exp * 1000).toISOString()]],
  );
  const active = okValue(
    await sendToken(ctx.setup, Token.introspect({ clientId: WIDGET.clientId, token: tokens.accessToken })),
  );
  assert.is(active.active, true);
  okValue(
    await sendToken(ctx.setup, Token.withdrawConsent({ accountId: consent.accountId, clientId: WIDGET.clientId })),
  );
  const inactive = okValue(
    await sendToken(ctx.setup, Token.introspect({ clientId: WIDGET.clientId, token: tokens.accessToken })),
  );
  assert.is(inactive.active, false, 'introspection: inactive at once');
  assert.is(ctx.setup.verify.lookup(tokens.accessToken), undefined, 'not answered from the cache');
  await ctx.setup.verify(tokens.accessToken).then(
    () => assert.unreachable('the access token is still accepted'),
    () => {},
  );
  assert.equal(okValue(await administer(ctx.setup, Accounts.listLogins({ id: consent.accountId }))), []);
});

t('a password login of a client without refresh_token is listed and ended alone by its sid', async () => {
  const issue = () =>
    sendToken(
      ctx.setup,
      Token.issueToken({ clientId: WIDGET.clientId, username: 'john.doe', password: 'john-password' }),
    );
  const first = await issue();
  const second = await issue();
  if ('retryAfter' in first || 'retryAfter' in second) return assert.unreachable('throttled');
  const [ended, kept] = [
    await ctx.setup.verify(okValue(first).accessToken),
    await ctx.setup.verify(okValue(second).accessToken),
  ];
  const id = ended.accountId ?? -1;
  const sids = () =>
    administer(ctx.setup, Accounts.listLogins({ id })).then((r) =>
      okValue(r)
        .map((l) => l.sid)
        .sort(),
    );
  assert.equal(await sids(), [ended.loginId, kept.loginId].sort());
  okValue(await administer(ctx.setup, Accounts.endLogins({ id, loginId: ended.loginId ?? '', actor: 'admin' })));
  assert.equal(await sids(), [kept.loginId]);
  await ctx.setup.verify(okValue(first).accessToken).then(
    () => assert.unreachable('the ended login is still accepted'),
    () => {},
  );
  assert.is((await ctx.setup.verify(okValue(second).accessToken)).loginId, kept.loginId, 'the other goes on');
});

t('two processes: a withdrawal while a code is redeemed ends the login the redemption writes', async () => {
  const dir = tempDir('troupe-consent-race-');
  const holds: Holds = {};
  const systems = [startSystem('consent-race-here'), startSystem('consent-race-there')] as const;
  const [here, there] = [
    await startTokenActor(systems[0], {
      hasher: ctx.hasher,
      clients: [CLIENT, PARTNER],
      dataDir: dir,
      consents: holdingStores(holds).consents,
    }),
    await startTokenActor(systems[1], { hasher: ctx.hasher, clients: [CLIENT, PARTNER], dataDir: dir }),
  ] as const;
  try {
    const signedIn = okValue(
      await sendToken(
        here,
        Token.authorize({
          clientId: PARTNER.clientId,
          redirectUri: REDIRECT,
          username: 'john.doe',
          password: 'john-password',
          scope: ['read'],
          codeChallenge: s256(VERIFIER),
        }),
      ),
    );
    if (!('consent' in signedIn)) return assert.unreachable('a code without consent');
    const { accountId, accountVersion, authTime } = signedIn.consent;
    const { code } = okValue(
      await sendToken(
        here,
        Token.authorizeConsented({
          clientId: PARTNER.clientId,
          redirectUri: REDIRECT,
          scope: ['read'],
          codeChallenge: s256(VERIFIER),
          accountId,
          accountVersion,
          authTime,
          ticket: newTicket(),
        }),
      ),
    );
    // Held right after the redemption read the consent, before its login is written.
    const hold = gate();
    holds.consent = hold;
    const redemption = sendToken(
      here,
      Token.redeemCode({ clientId: PARTNER.clientId, code, redirectUri: REDIRECT, codeVerifier: VERIFIER }),
    );
    await hold.reached;
    okValue(await sendToken(there, Token.withdrawConsent({ accountId, clientId: PARTNER.clientId })));
    hold.release();
    const reply = await redemption;
    assert.equal(reply.ok ? 'ok' : [reply.code, reply.message], ['grant.invalid', WITHDRAWN]);
    assert.equal(okValue(await administer(there, Accounts.listLogins({ id: accountId }))), [], 'a login outlived it');
  } finally {
    for (const system of systems) stopSystem(system);
    here.db.close();
    there.db.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

t.run();

/**
 * A confidential client registered with `pkce_required: false` may leave PKCE out of an OpenID
 * request that sends a nonce (RFC 9700 §2.1.1): its code then redeems without a `code_verifier`,
 * and refuses one (RFC 9700 §4.8.2). Every other request, and every other client, needs PKCE.
 */
import { decodeJwt } from 'jose';
import * as client from 'openid-client';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { authorizeUrl, openForm, pkce, redirectedTo, submit } from '../helpers/authorize.ts';
import { CLIENTS, clientsFile, PARTNER, SPA, WEB } from '../helpers/clients.ts';
import { startLibrarySetup } from '../helpers/oauth-library.ts';
import { serverSuite } from '../helpers/server.ts';
import { bearer, postToken, type TokenResponse } from '../helpers/tokens.ts';

/** WEB without PKCE required and asking `openid`; PARTNER and SPA as registered by default (PKCE required). */
const t = serverSuite('OpenID Connect: a confidential client that may leave PKCE out (pkce_required: false)', {
  'security.clients-file': clientsFile(
    CLIENTS.map((c) => (c.client_id === WEB.id ? { ...c, scope: `openid ${c.scope}`, pkce_required: false } : c)),
  ),
});

type Tokens = TokenResponse & { id_token?: string };

const NONCE = 'n-0S6_WzA2Mj';
const request = (over: Record<string, string> = {}, to: { id: string; redirect: string } = WEB) =>
  Object.fromEntries(
    Object.entries({
      response_type: 'code',
      client_id: to.id,
      redirect_uri: to.redirect,
      scope: 'openid read',
      state: 'state-p',
      nonce: NONCE,
      ...over,
    }).filter(([, value]) => value !== ''),
  );

/** The code of `params`, signed in as john.doe (WEB is first-party: no consent). */
async function codeOf(url: string, params: Record<string, string>): Promise<string> {
  const form = await openForm(authorizeUrl(url, params));
  assert.is(form.status, 200, 'the sign-in form');
  const code = redirectedTo(await submit(url, form)).searchParams.get('code');
  if (code === null) throw new Error('no code');
  return code;
}

const redeem = (url: string, code: string, extra: Record<string, string> = {}) =>
  postToken(
    url,
    {
      grant_type: 'authorization_code',
      code,
      redirect_uri: WEB.redirect,
      client_id: WEB.id,
      client_secret: WEB.secret,
      ...extra,
    },
    {},
  );

/** Where the authorization endpoint sent the browser back to, for a refused request. */
async function refusal(url: string, params: Record<string, string>) {
  const res = await fetch(authorizeUrl(url, params), { redirect: 'manual' });
  assert.is(res.status, 302);
  const back = redirectedTo(res);
  return { error: back.searchParams.get('error'), description: back.searchParams.get('error_description') };
}

const PKCE_REFUSED = { error: 'invalid_request', description: 'PKCE is required: missing code_challenge' };

t('GET /oauth/authorize › openid and a nonce, no code_challenge → a code that redeems with an id_token', async (c) => {
  const code = await codeOf(c.server.url, request());
  const res = await redeem(c.server.url, code);
  assert.is(res.status, 200);
  const tokens = (await res.json()) as Tokens;
  const claims = decodeJwt(tokens.id_token ?? '');
  assert.is(claims.nonce, NONCE);
  assert.is(claims.aud, WEB.id);
  const user = await fetch(`${c.server.url}/app/user`, { headers: bearer(tokens.access_token) });
  assert.is(user.status, 200);
});

t('GET /oauth/authorize › without PKCE and without a nonce → back with invalid_request', async (c) => {
  assert.equal(await refusal(c.server.url, request({ nonce: '' })), PKCE_REFUSED);
});

t('GET /oauth/authorize › without PKCE, a nonce but no openid scope → back with invalid_request', async (c) => {
  assert.equal(await refusal(c.server.url, request({ scope: 'read' })), PKCE_REFUSED);
  assert.equal(await refusal(c.server.url, request({ scope: '' })), PKCE_REFUSED, 'no scope: not an OpenID request');
});

t('GET /oauth/authorize › a client registered by default needs PKCE, openid and nonce or not', async (c) => {
  assert.equal(await refusal(c.server.url, request({}, PARTNER)), PKCE_REFUSED);
  assert.equal(await refusal(c.server.url, request({ scope: 'read' }, SPA)), PKCE_REFUSED);
});

t('GET /oauth/authorize › a code_challenge sent is checked as ever: S256 and well formed', async (c) => {
  const { challenge } = pkce();
  assert.equal(await refusal(c.server.url, request({ code_challenge: challenge, code_challenge_method: 'plain' })), {
    error: 'invalid_request',
    description: 'code_challenge_method must be S256',
  });
  assert.equal(await refusal(c.server.url, request({ code_challenge: 'short', code_challenge_method: 'S256' })), {
    error: 'invalid_request',
    description: 'Malformed code_challenge',
  });
});

t(
  'POST /oauth/token › a code issued without a challenge, redeemed with a code_verifier → 400 invalid_grant',
  async (c) => {
    const code = await codeOf(c.server.url, request());
    const res = await redeem(c.server.url, code, { code_verifier: pkce().verifier });
    assert.is(res.status, 400);
    assert.equal(await res.json(), {
      error: 'invalid_grant',
      error_description: 'code_verifier sent for a code issued without a challenge',
    });
    assert.is((await redeem(c.server.url, code)).status, 400, 'the code was spent by the refused request');
  },
);

t('POST /oauth/token › a code issued with a challenge needs its verifier → 400 invalid_grant without it', async (c) => {
  const { challenge, verifier } = pkce();
  const params = request({ code_challenge: challenge, code_challenge_method: 'S256' });
  const missing = await redeem(c.server.url, await codeOf(c.server.url, params));
  assert.is(missing.status, 400);
  assert.equal(await missing.json(), {
    error: 'invalid_grant',
    error_description: 'Missing code_verifier: the code was issued with a challenge',
  });
  const res = await redeem(c.server.url, await codeOf(c.server.url, params), { code_verifier: verifier });
  assert.is(res.status, 200);
});

t.run();

const lib = suite('openid-client: the code flow without PKCE, checked by the nonce');

lib('authorizationCodeGrant without a pkceCodeVerifier, with expectedNonce: an id_token of the nonce', async () => {
  const setup = await startLibrarySetup({ web: { scope: 'openid read write', pkce_required: false } });
  try {
    const nonce = client.randomNonce();
    const state = client.randomState();
    const url = client.buildAuthorizationUrl(setup.web, {
      redirect_uri: setup.target.callback,
      scope: 'openid read',
      nonce,
      state,
    });
    const res = await submit(setup.server.url, await openForm(url.href));
    const callback = new URL(res.headers.get('location') ?? '');
    const tokens = await client.authorizationCodeGrant(setup.web, callback, {
      expectedState: state,
      expectedNonce: nonce,
    });
    assert.is(tokens.claims()?.nonce, nonce);
    // Another nonce expected: the library refuses the id_token.
    const again = client.buildAuthorizationUrl(setup.web, {
      redirect_uri: setup.target.callback,
      scope: 'openid read',
      nonce,
      state,
    });
    const back = new URL((await submit(setup.server.url, await openForm(again.href))).headers.get('location') ?? '');
    const refused = await client
      .authorizationCodeGrant(setup.web, back, { expectedState: state, expectedNonce: client.randomNonce() })
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    assert.ok(refused, 'an id_token of another nonce was accepted');
  } finally {
    await setup.close();
  }
});

lib.run();

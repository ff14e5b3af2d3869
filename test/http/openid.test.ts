/**
 * OpenID Connect over HTTP: an authorization request's `nonce` travels through the sign-in form and
 * the consent page, bound to the browser and the request as every other parameter is; the code of
 * an `openid` request redeems with an id_token that a relying party verifies against the JWKS
 * alone; an id_token is no access token; no other grant issues one.
 */
import { createHash } from 'node:crypto';
import bcrypt from 'bcryptjs';
import { createLocalJWKSet, decodeJwt, jwtVerify, type JSONWebKeySet } from 'jose';
import * as client from 'openid-client';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { authorizeUrl, decide, openForm, pageOf, pkce, redirectedTo, submit } from '../helpers/authorize.ts';
import { CLIENTS, clientsFile, PARTNER, SERVICE, WEB } from '../helpers/clients.ts';
import { authorizationUrl, startLibrarySetup } from '../helpers/oauth-library.ts';
import { serverSuite } from '../helpers/server.ts';
import { basic, bearer, postToken, type TokenResponse } from '../helpers/tokens.ts';

/** A client of the password grant (and client_credentials) that may ask `openid`. */
const LEGACY = { id: 'legacy-app', secret: 'legacy-app-secret-0123' } as const;

/** The test clients, the web, partner and service clients asking `openid` besides their scopes, and {@link LEGACY}. */
const OPENID_CLIENTS = [
  ...CLIENTS.map((c) =>
    new Set<string>([WEB.id, PARTNER.id, SERVICE.id]).has(c.client_id) ? { ...c, scope: `openid ${c.scope}` } : c,
  ),
  {
    client_id: LEGACY.id,
    client_secret: bcrypt.hashSync(LEGACY.secret, 4),
    token_endpoint_auth_method: 'client_secret_basic',
    grant_types: ['password', 'client_credentials'],
    scope: 'openid read',
  },
];

const t = serverSuite('OpenID Connect: the nonce through the forms, the id_token of a code', {
  'security.clients-file': clientsFile(OPENID_CLIENTS),
});

type Tokens = TokenResponse & { id_token?: string };

const { challenge, verifier } = pkce();
const NONCE = 'n-0S6_WzA2Mj';
const request = (client: { id: string; redirect: string }, over: Record<string, string> = {}) => ({
  response_type: 'code',
  client_id: client.id,
  redirect_uri: client.redirect,
  scope: 'openid read',
  state: 'state-o',
  nonce: NONCE,
  code_challenge: challenge,
  code_challenge_method: 'S256',
  ...over,
});

t('GET › the nonce is a hidden field of the sign-in form, as sent', async (c) => {
  const form = await openForm(authorizeUrl(c.server.url, request(WEB)));
  assert.is(form.status, 200);
  assert.is(form.fields.get('nonce'), NONCE);
  const without = await openForm(authorizeUrl(c.server.url, request(WEB, { nonce: '' })));
  assert.is(without.fields.get('nonce'), '', 'an empty nonce is carried as sent, and means none');
});

t('POST › a nonce changed on the sign-in form → 400 expired page, no code', async (c) => {
  const form = await openForm(authorizeUrl(c.server.url, request(WEB)));
  const res = await submit(c.server.url, form, undefined, (body) => body.set('nonce', 'chosen-by-another'));
  assert.is(res.status, 400);
  assert.is(res.headers.get('location'), null);
  assert.match(await res.text(), /expired/);
});

t('GET › a repeated nonce → back to the client with invalid_request', async (c) => {
  const url = new URL(authorizeUrl(c.server.url, request(WEB)));
  url.searchParams.append('nonce', 'another');
  const form = await openForm(url.href);
  assert.is(form.status, 302);
  const back = redirectedTo(form as unknown as Response);
  assert.is(back.searchParams.get('error'), 'invalid_request');
  assert.is(back.searchParams.get('error_description'), 'Parameter nonce is repeated');
  assert.is(back.searchParams.get('state'), 'state-o');
});

t('POST /oauth/authorize/consent › the consent page carries the nonce; changed, it is refused', async (c) => {
  const form = await openForm(authorizeUrl(c.server.url, request(PARTNER)));
  const signedIn = await submit(c.server.url, form);
  assert.is(signedIn.status, 200, 'the consent page');
  const page = await pageOf(signedIn);
  assert.is(page.fields.get('nonce'), NONCE);
  const cookie = page.cookie ?? form.cookie;
  const changed = await decide(c.server.url, page, 'allow', cookie, (body) => body.set('nonce', 'another'));
  assert.is(changed.status, 400);
  assert.is(changed.headers.get('location'), null);
  const allowed = await decide(c.server.url, page, 'allow', cookie);
  assert.is(allowed.status, 303);
  assert.ok(redirectedTo(allowed).searchParams.get('code'));
});

/** The tokens of a code of `request`, signed in as john.doe (a first-party client: no consent). */
async function codeFlow(url: string, over: Record<string, string> = {}): Promise<Tokens> {
  const form = await openForm(authorizeUrl(url, request(WEB, over)));
  const code = redirectedTo(await submit(url, form)).searchParams.get('code') ?? '';
  const form2 = { grant_type: 'authorization_code', code, redirect_uri: WEB.redirect, code_verifier: verifier };
  const res = await postToken(url, { ...form2, client_id: WEB.id, client_secret: WEB.secret }, {});
  assert.is(res.status, 200);
  return (await res.json()) as Tokens;
}

const jwksOf = async (url: string): Promise<JSONWebKeySet> =>
  (await (await fetch(`${url}/.well-known/jwks.json`)).json()) as JSONWebKeySet;

t(
  'POST /oauth/token › the code of an openid request: an id_token that verifies against the JWKS, every claim',
  async (c) => {
    const before = Math.floor(Date.now() / 1000);
    const tokens = await codeFlow(c.server.url);
    const jwks = await jwksOf(c.server.url);
    const idToken = tokens.id_token ?? '';
    const { payload, protectedHeader } = await jwtVerify(idToken, createLocalJWKSet(jwks), {
      algorithms: ['RS256'],
      issuer: c.server.config.security.jwt.issuer,
      audience: WEB.id,
      typ: 'JWT',
      requiredClaims: ['iss', 'sub', 'aud', 'exp', 'iat', 'auth_time', 'nonce', 'at_hash'],
    });
    assert.is(protectedHeader.alg, 'RS256');
    const key = jwks.keys.find((k) => k.kid === protectedHeader.kid);
    assert.equal([key?.kty, key?.alg, key?.use], ['RSA', 'RS256', 'sig'], 'the JWKS resolves its kid');
    assert.equal(Object.keys(payload).sort(), ['at_hash', 'aud', 'auth_time', 'exp', 'iat', 'iss', 'nonce', 'sub']);
    assert.is(payload.sub, decodeJwt(tokens.access_token).sub, "the access token's subject");
    assert.match(payload.sub ?? '', /^account:[1-9][0-9]*$/);
    assert.is(payload.aud, WEB.id);
    assert.is(payload['nonce'], NONCE);
    const iat = payload.iat ?? 0;
    assert.ok(iat >= before && iat <= Math.floor(Date.now() / 1000), 'issued now');
    assert.is((payload.exp ?? 0) - iat, c.server.config.security.jwt.accessTokenValidity);
    const authTime = Number(payload['auth_time']);
    assert.ok(authTime >= before && authTime <= iat, 'when the password was checked');
    const digest = createHash('sha256').update(tokens.access_token, 'ascii').digest();
    assert.is(payload['at_hash'], digest.subarray(0, digest.length / 2).toString('base64url'));
    assert.is(tokens.scope, 'openid read');
  },
);

t('POST /oauth/token › without a nonce: an id_token without one; without openid: no id_token', async (c) => {
  const plain = await codeFlow(c.server.url, { nonce: '' });
  assert.not.ok('nonce' in decodeJwt(plain.id_token ?? ''));
  const oauth = await codeFlow(c.server.url, { scope: 'read' });
  assert.not.ok('id_token' in oauth);
});

t(
  'POST /oauth/token › a refresh of an openid login: a fresh id_token, its sub, aud and auth_time, no nonce',
  async (c) => {
    const tokens = await codeFlow(c.server.url);
    const jwks = createLocalJWKSet(await jwksOf(c.server.url));
    const options = {
      algorithms: ['RS256'],
      issuer: c.server.config.security.jwt.issuer,
      audience: WEB.id,
      typ: 'JWT',
    };
    const { payload: original } = await jwtVerify(tokens.id_token ?? '', jwks, options);
    const form = { grant_type: 'refresh_token', refresh_token: tokens.refresh_token ?? '' };
    const res = await postToken(c.server.url, { ...form, client_id: WEB.id, client_secret: WEB.secret }, {});
    assert.is(res.status, 200);
    const refreshed = (await res.json()) as Tokens;
    const { payload } = await jwtVerify(refreshed.id_token ?? '', jwks, options);
    assert.equal(Object.keys(payload).sort(), ['at_hash', 'aud', 'auth_time', 'exp', 'iat', 'iss', 'sub']);
    assert.equal([payload.sub, payload['auth_time']], [original.sub, original['auth_time']]);
    assert.ok((payload.iat ?? 0) >= (original.iat ?? 0));
    const digest = createHash('sha256').update(refreshed.access_token, 'ascii').digest();
    assert.is(payload['at_hash'], digest.subarray(0, 16).toString('base64url'), 'of the new access token');
  },
);

t('an id_token presented as a bearer token → 401 invalid_token; introspection says inactive', async (c) => {
  const { id_token: idToken = '' } = await codeFlow(c.server.url);
  const res = await fetch(`${c.server.url}/app/user`, { headers: bearer(idToken) });
  assert.is(res.status, 401);
  assert.is(((await res.json()) as { error: string }).error, 'invalid_token');
  assert.match(res.headers.get('www-authenticate') ?? '', /error="invalid_token"/);
  const inactive = await fetch(`${c.server.url}/oauth/introspect`, {
    method: 'POST',
    headers: { Authorization: basic(SERVICE.id, SERVICE.secret), 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ token: idToken }).toString(),
  });
  assert.equal(await inactive.json(), { active: false });
});

t('the password and client_credentials grants never return an id_token, openid in the scope or not', async (c) => {
  const auth = { Authorization: basic(LEGACY.id, LEGACY.secret) };
  const password = await postToken(
    c.server.url,
    { grant_type: 'password', username: 'john.doe', password: 'john-password', scope: 'openid read' },
    auth,
  );
  assert.is(password.status, 200);
  const passwordTokens = (await password.json()) as Tokens;
  assert.is(passwordTokens.scope, 'openid read');
  assert.not.ok('id_token' in passwordTokens);
  const service = await postToken(c.server.url, { grant_type: 'client_credentials', scope: 'openid read' }, auth);
  assert.is(service.status, 200);
  assert.not.ok('id_token' in ((await service.json()) as Tokens));
});

t.run();

const library = suite('openid-client: the code flow of an openid request, its id_token, nonce and refresh checked');

library(
  'openid-client redeems the code, checking the id_token and its nonce; a refresh keeps sub and auth_time',
  async () => {
    const setup = await startLibrarySetup({ web: { scope: 'openid read write' } });
    try {
      const nonce = client.randomNonce();
      const start = await authorizationUrl(setup, 'openid read', { nonce });
      const res = await submit(setup.server.url, await openForm(start.url.href));
      const callback = new URL(res.headers.get('location') ?? '');
      const tokens = await client.authorizationCodeGrant(setup.web, callback, {
        pkceCodeVerifier: start.verifier,
        expectedState: start.state,
        expectedNonce: nonce,
      });
      const claims = tokens.claims();
      assert.is(claims?.nonce, nonce);
      assert.is(claims?.aud, WEB.id);
      assert.match(claims?.sub ?? '', /^account:/);
      const refreshed = await client.refreshTokenGrant(setup.web, tokens.refresh_token ?? '');
      assert.equal(
        [refreshed.claims()?.sub, refreshed.claims()?.auth_time],
        [claims?.sub, claims?.auth_time],
        "a refresh's id_token: the same sub and auth_time",
      );
      // The same flow with another nonce expected is refused by the library.
      const again = await authorizationUrl(setup, 'openid read', { nonce });
      const back = new URL(
        (await submit(setup.server.url, await openForm(again.url.href))).headers.get('location') ?? '',
      );
      const refused = await client
        .authorizationCodeGrant(setup.web, back, {
          pkceCodeVerifier: again.verifier,
          expectedState: again.state,
          expectedNonce: client.randomNonce(),
        })
        .then(
          () => undefined,
          (error: unknown) => error as { code?: string },
        );
      assert.is(refused?.code, 'OAUTH_JWT_CLAIM_COMPARISON_FAILED', 'a nonce other than the one sent was accepted');
    } finally {
      await setup.close();
    }
  },
);

library.run();

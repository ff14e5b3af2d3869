/**
 * oauth4webapi, the low-level certified library under openid-client, judges troupe as a relying
 * party would: discovery, the authorization response (state, RFC 9207 `iss`), the code's token
 * response with its id_token (issuer, audience, expiry, nonce, `auth_time` against `max_age`),
 * UserInfo bound to the id_token's `sub`, and a refresh that keeps `sub` and `auth_time`. The
 * library leaves the id_token's signature to TLS in the code flow, so the test verifies it against
 * the discovered JWKS, and its `at_hash` against the access token.
 */
import { createHash } from 'node:crypto';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import * as oauth from 'oauth4webapi';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { openForm, submit } from '../helpers/authorize.ts';
import { WEB } from '../helpers/clients.ts';
import { startLibrarySetup, type LibrarySetup } from '../helpers/oauth-library.ts';

const t = suite(
  'oauth4webapi: discovery, the code flow of an openid request, userinfo and refresh',
  {} as {
    setup: LibrarySetup;
    as: oauth.AuthorizationServer;
  },
);

const insecure = { [oauth.allowInsecureRequests]: true } as const;
const client: oauth.Client = { client_id: WEB.id };
const auth = oauth.ClientSecretPost(WEB.secret);

t.before(async (c) => {
  c.setup = await startLibrarySetup({ web: { scope: 'openid profile email read' } });
  const issuer = new URL(c.setup.server.url);
  c.as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, insecure));
});
t.after(async (c) => c.setup?.close());

/** Signs in through the authorization endpoint as a browser would; the callback's parameters, as the library validated them. */
async function authorize(c: { setup: LibrarySetup; as: oauth.AuthorizationServer }, nonce: string, verifier: string) {
  const state = oauth.generateRandomState();
  const url = new URL(c.as.authorization_endpoint ?? '');
  for (const [name, value] of Object.entries({
    response_type: 'code',
    client_id: WEB.id,
    redirect_uri: c.setup.target.callback,
    scope: 'openid profile email read',
    state,
    nonce,
    max_age: '600',
    code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
  }))
    url.searchParams.set(name, value);
  const res = await submit(c.setup.server.url, await openForm(url.href));
  assert.is(res.status, 303);
  return oauth.validateAuthResponse(c.as, client, new URL(res.headers.get('location') ?? ''), state);
}

t('the id_token, userinfo and a refresh pass the library; the signature and at_hash check out', async (c) => {
  assert.is(c.as.issuer, c.setup.server.url);
  assert.ok(c.as.id_token_signing_alg_values_supported?.includes('RS256'));
  const nonce = oauth.generateRandomNonce();
  const verifier = oauth.generateRandomCodeVerifier();
  const params = await authorize(c, nonce, verifier);
  const response = await oauth.processAuthorizationCodeResponse(
    c.as,
    client,
    await oauth.authorizationCodeGrantRequest(c.as, client, auth, params, c.setup.target.callback, verifier, insecure),
    { expectedNonce: nonce, maxAge: 600, requireIdToken: true },
  );
  const claims = oauth.getValidatedIdTokenClaims(response);
  assert.ok(claims);
  assert.match(claims.sub, /^account:/);
  assert.is(claims.aud, WEB.id);
  assert.is(typeof claims.auth_time, 'number');

  const jwks = createRemoteJWKSet(new URL(c.as.jwks_uri ?? ''));
  const { payload, protectedHeader } = await jwtVerify(response.id_token ?? '', jwks, {
    issuer: c.as.issuer,
    audience: WEB.id,
  });
  assert.is(protectedHeader.alg, 'RS256');
  const digest = createHash('sha256').update(response.access_token).digest();
  assert.is(payload.at_hash, digest.subarray(0, digest.length / 2).toString('base64url'));

  const userinfo = await oauth.processUserInfoResponse(
    c.as,
    client,
    claims.sub,
    await oauth.userInfoRequest(c.as, client, response.access_token, insecure),
  );
  assert.is(userinfo.sub, claims.sub);
  assert.is(userinfo.preferred_username, 'john.doe');

  const refreshed = await oauth.processRefreshTokenResponse(
    c.as,
    client,
    await oauth.refreshTokenGrantRequest(c.as, client, auth, response.refresh_token ?? '', insecure),
  );
  const again = oauth.getValidatedIdTokenClaims(refreshed);
  assert.equal([again?.sub, again?.auth_time], [claims.sub, claims.auth_time]);
});

t('a nonce other than the one sent is refused by the library', async (c) => {
  const verifier = oauth.generateRandomCodeVerifier();
  const params = await authorize(c, oauth.generateRandomNonce(), verifier);
  const res = await oauth.authorizationCodeGrantRequest(
    c.as,
    client,
    auth,
    params,
    c.setup.target.callback,
    verifier,
    insecure,
  );
  const error = await oauth
    .processAuthorizationCodeResponse(c.as, client, res, { expectedNonce: oauth.generateRandomNonce() })
    .then(
      () => undefined,
      (e: unknown) => e as { code?: string },
    );
  assert.is(error?.code, oauth.JWT_CLAIM_COMPARISON);
});

t.run();

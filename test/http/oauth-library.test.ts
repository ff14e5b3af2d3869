/** openid-client, a certified client library, against troupe: the code flow (without a browser) and client_credentials. */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { decodeJwt } from 'jose';
import * as client from 'openid-client';
import { openForm, submit } from '../helpers/authorize.ts';
import {
  authorizationUrl,
  openIdConfiguration,
  startLibrarySetup,
  type LibrarySetup,
} from '../helpers/oauth-library.ts';
import { bearer } from '../helpers/tokens.ts';

const ctx = {} as { setup: LibrarySetup };
const t = suite('openid-client: authorization_code with PKCE, client_credentials', ctx);

t.before(async () => {
  ctx.setup = await startLibrarySetup();
});
t.after(async () => ctx.setup?.close());

t('the library discovers the code-flow metadata', () => {
  const m = ctx.setup.web.serverMetadata();
  assert.is(m.authorization_endpoint, `${ctx.setup.server.url}/oauth/authorize`);
  assert.ok(m.supportsPKCE('S256'));
  assert.is(m.authorization_response_iss_parameter_supported, true);
});

t('the library redeems the code with PKCE, checking state and iss; the token opens /app/user', async () => {
  const start = await authorizationUrl(ctx.setup);
  const res = await submit(ctx.setup.server.url, await openForm(start.url.href));
  const callback = new URL(res.headers.get('location') ?? '');
  const tokens = await client.authorizationCodeGrant(ctx.setup.web, callback, {
    pkceCodeVerifier: start.verifier,
    expectedState: start.state,
  });
  assert.type(tokens.refresh_token, 'string');
  const user = await fetch(`${ctx.setup.server.url}/app/user`, { headers: bearer(tokens.access_token) });
  assert.is(user.status, 200);
  const refreshed = await client.refreshTokenGrant(ctx.setup.web, tokens.refresh_token ?? '');
  assert.type(refreshed.access_token, 'string');
});

t('the library refuses a redirect whose iss is not the issuer', async () => {
  const start = await authorizationUrl(ctx.setup);
  const res = await submit(ctx.setup.server.url, await openForm(start.url.href));
  const callback = new URL(res.headers.get('location') ?? '');
  callback.searchParams.set('iss', 'http://attacker.example');
  const refused = await client
    .authorizationCodeGrant(ctx.setup.web, callback, { pkceCodeVerifier: start.verifier, expectedState: start.state })
    .then(
      () => undefined,
      (error: unknown) => error as { code?: string; cause?: { message?: string } },
    );
  assert.is(refused?.code, 'OAUTH_INVALID_RESPONSE', 'a foreign iss was accepted');
  assert.match(JSON.stringify(refused?.cause ?? {}) + String(refused?.cause?.message), /iss/);
});

t('client_credentials through the library: a token of the client, read scope', async () => {
  const tokens = await client.clientCredentialsGrant(ctx.setup.service, { scope: 'read' });
  assert.is(tokens.scope, 'read');
  assert.is(tokens.refresh_token, undefined);
  const claims = JSON.parse(Buffer.from(tokens.access_token.split('.')[1] ?? '', 'base64url').toString()) as Record<
    string,
    unknown
  >;
  assert.is(claims['sub'], 'reporting-service');
  const user = await fetch(`${ctx.setup.server.url}/app/user`, { headers: bearer(tokens.access_token) });
  assert.is(user.status, 403, 'no role');
});

t.run();

const oidc = suite('openid-client: OpenID Connect Discovery and UserInfo', ctx);
oidc.before(async () => {
  ctx.setup = await startLibrarySetup({ web: { scope: 'read write openid profile email' } });
});
oidc.after(async () => ctx.setup?.close());

oidc('the library discovers the OpenID Provider metadata', async () => {
  const m = (await openIdConfiguration(ctx.setup)).serverMetadata();
  assert.is(m.issuer, ctx.setup.server.config.security.jwt.issuer);
  assert.is(m.userinfo_endpoint, `${ctx.setup.server.url}/userinfo`);
  assert.equal(m.id_token_signing_alg_values_supported, ['RS256']);
  assert.ok(m.scopes_supported?.includes('openid'));
});

// No id_token is issued yet: the code is redeemed without the library's id_token checks (no
// nonce, no max_age), and the library's UserInfo call is checked against the access token's sub.
oidc('the library fetches UserInfo with a code-flow token, by GET and by POST', async () => {
  const config = await openIdConfiguration(ctx.setup);
  const start = await authorizationUrl(ctx.setup, 'openid profile email');
  const res = await submit(ctx.setup.server.url, await openForm(start.url.href));
  const tokens = await client.authorizationCodeGrant(config, new URL(res.headers.get('location') ?? ''), {
    pkceCodeVerifier: start.verifier,
    expectedState: start.state,
  });
  assert.is(tokens.scope, 'openid profile email');
  const claims = await client.fetchUserInfo(config, tokens.access_token, decodeJwt(tokens.access_token).sub ?? '');
  assert.is(claims.sub, 'account:2');
  assert.is(claims.name, 'John Doe');
  assert.is(claims.preferred_username, 'john.doe');
  assert.type(claims.updated_at, 'number');
  const endpoint = new URL(config.serverMetadata().userinfo_endpoint ?? '');
  const byPost = await client.fetchProtectedResource(config, tokens.access_token, endpoint, 'POST');
  assert.is(byPost.status, 200);
  assert.equal(await byPost.json(), { ...claims });
});

oidc.run();

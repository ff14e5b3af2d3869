/**
 * Self-service (`/app/me/**`: one's consents and one's password) on a real server: only a token
 * issued to one of the service's own applications (the `security.jwt.*` client, a client registered
 * with `consent: implicit`) is let through; a third-party application's token, a client's own token
 * of a third-party client and a token of a client no longer registered are 403 `insufficient_scope`
 * before the handler runs, and change nothing.
 */
import bcrypt from 'bcryptjs';
import * as assert from 'uvu/assert';
import { authorizeUrl, decide, openForm, pageOf, pkce, redirectedTo, submit } from '../helpers/authorize.ts';
import { CLIENTS, clientsFile, PARTNER, SERVICE, WEB } from '../helpers/clients.ts';
import { newUserAccount } from '../helpers/accounts.ts';
import { serverSuite, startTestServer } from '../helpers/server.ts';
import { basic, bearer, login, postToken, USERS, type TokenResponse } from '../helpers/tokens.ts';

/** A first-party service (`consent: implicit`) with a token of its own: first-party, but of no account. */
const OWN_SERVICE = { id: 'own-batch', secret: 'own-batch-secret' } as const;
const t = serverSuite('Self-service: first-party clients only', {
  'security.clients-file': clientsFile([
    ...CLIENTS,
    {
      client_id: OWN_SERVICE.id,
      client_secret: bcrypt.hashSync(OWN_SERVICE.secret, 4),
      grant_types: ['client_credentials'],
      scope: 'read',
      consent: 'implicit',
    },
  ]),
});

type User = { username: string; password: string };
const { challenge, verifier } = pkce();

/** A new USER account, made by the admin. */
const newAccount = (url: string): Promise<User> => newUserAccount(url, 'self');

/** The code flow of `client` signed in as `user` (Allow on the consent page when one is shown); its tokens. */
async function codeFlow(
  url: string,
  user: User,
  client: { id: string; redirect: string },
  redeemAuth: { headers: Record<string, string>; form: Record<string, string> },
): Promise<TokenResponse> {
  const form = await openForm(
    authorizeUrl(url, {
      response_type: 'code',
      client_id: client.id,
      redirect_uri: client.redirect,
      state: 's',
      code_challenge: challenge,
      code_challenge_method: 'S256',
      scope: 'read',
    }),
  );
  let res = await submit(url, form, user);
  if (res.status === 200) {
    const page = await pageOf(res);
    res = await decide(url, page, 'allow', page.cookie ?? form.cookie);
  }
  const code = redirectedTo(res).searchParams.get('code') ?? '';
  const redeemed = await postToken(
    url,
    {
      grant_type: 'authorization_code',
      code,
      redirect_uri: client.redirect,
      code_verifier: verifier,
      ...redeemAuth.form,
    },
    redeemAuth.headers,
  );
  assert.is(redeemed.status, 200);
  return (await redeemed.json()) as TokenResponse;
}

const partnerTokens = (url: string, user: User) =>
  codeFlow(url, user, PARTNER, { headers: { Authorization: basic(PARTNER.id, PARTNER.secret) }, form: {} });
const webTokens = (url: string, user: User) =>
  codeFlow(url, user, WEB, { headers: {}, form: { client_id: WEB.id, client_secret: WEB.secret } });

const call = (url: string, method: string, path: string, token: string, body?: unknown) =>
  fetch(`${url}${path}`, {
    method,
    headers: { ...bearer(token), ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });

/** The three self-service routes, as a caller holding `user`'s current password would send them. */
const selfService = (user: User) =>
  [
    ['GET', '/app/me/consents', undefined],
    ['DELETE', `/app/me/consents/${PARTNER.id}`, undefined],
    ['PUT', '/app/me/password', { currentPassword: user.password, newPassword: 'a-password-never-set' }],
  ] as const;

async function expectNotFirstParty(res: Response, what: string): Promise<void> {
  assert.is(res.status, 403, what);
  assert.is(((await res.json()) as { error: string }).error, 'insufficient_scope', what);
  const challenge = res.headers.get('www-authenticate') ?? '';
  assert.match(challenge, /^Bearer realm="[^"]*", error="insufficient_scope", error_description="[^"]+"$/, what);
}

t(
  "a third-party application's token → 403 insufficient_scope on every self-service route; nothing changes",
  async (c) => {
    const { url } = c.server;
    const user = await newAccount(url);
    const partner = await partnerTokens(url, user);
    for (const [method, path, body] of selfService(user))
      await expectNotFirstParty(await call(url, method, path, partner.access_token, body), `${method} ${path}`);
    // Nothing was withdrawn, nor the password changed: the partner's login lives on and so does the password.
    const own = (await login(url, user)).access_token;
    const consents = (await (await call(url, 'GET', '/app/me/consents', own)).json()) as { clientId: string }[];
    assert.equal(
      consents.map((r) => r.clientId),
      [PARTNER.id],
    );
    const refreshed = await postToken(
      url,
      { grant_type: 'refresh_token', refresh_token: partner.refresh_token ?? '' },
      { Authorization: basic(PARTNER.id, PARTNER.secret) },
    );
    assert.is(refreshed.status, 200, 'the partner login was not ended');
  },
);

t(
  'a first-party token (the security.jwt client, an implicit-consent client) manages consents and the password',
  async (c) => {
    const { url } = c.server;
    const user = await newAccount(url);
    await partnerTokens(url, user);
    const own = (await login(url, user)).access_token;
    assert.is((await call(url, 'GET', '/app/me/consents', own)).status, 200, 'security.jwt client');
    const web = (await webTokens(url, user)).access_token;
    assert.is((await call(url, 'GET', '/app/me/consents', web)).status, 200, 'implicit-consent client');
    assert.is((await call(url, 'DELETE', `/app/me/consents/${PARTNER.id}`, web)).status, 204);
    const changed = await call(url, 'PUT', '/app/me/password', web, {
      currentPassword: user.password,
      newPassword: 'self-service-new-password',
    });
    assert.is(changed.status, 204);
    await login(url, { username: user.username, password: 'self-service-new-password' });
  },
);

t("a client's own token: a third-party client's → 403; a first-party client's → 404 account.not_found", async (c) => {
  const { url } = c.server;
  const tokenOf = async (auth: string): Promise<string> => {
    const res = await postToken(url, { grant_type: 'client_credentials' }, { Authorization: auth });
    assert.is(res.status, 200);
    return ((await res.json()) as TokenResponse).access_token;
  };
  const service = await tokenOf(basic(SERVICE.id, SERVICE.secret));
  for (const [method, path, body] of selfService(USERS.john))
    await expectNotFirstParty(await call(url, method, path, service, body), `${method} ${path}`);
  const own = await tokenOf(basic(OWN_SERVICE.id, OWN_SERVICE.secret));
  for (const [method, path, body] of selfService(USERS.john)) {
    const res = await call(url, method, path, own, body);
    assert.is(res.status, 404, `${method} ${path}`);
    assert.is(((await res.json()) as { type: string }).type, 'urn:problem:troupe:account.not_found');
  }
});

t(
  'a token of a first-party client no longer registered → 403 insufficient_scope (unknown clients fail closed)',
  async () => {
    const retired = { id: 'retired-app', secret: 'retired-app-secret' };
    const withRetired = clientsFile([
      ...CLIENTS,
      {
        client_id: retired.id,
        client_secret: bcrypt.hashSync(retired.secret, 4),
        grant_types: ['password'],
        scope: 'read write',
        consent: 'implicit',
      },
    ]);
    // The second server is another process on the same data directory (its keys, its issuer), configured without the client.
    const before = await startTestServer({ 'security.clients-file': withRetired });
    try {
      const token = (await login(before.url, USERS.john, undefined, basic(retired.id, retired.secret))).access_token;
      assert.is((await call(before.url, 'GET', '/app/me/consents', token)).status, 200, 'first-party while registered');
      await before.stop();
      const after = await startTestServer({ 'security.clients-file': clientsFile(CLIENTS) }, before.dataDir);
      try {
        assert.is((await fetch(`${after.url}/app/user`, { headers: bearer(token) })).status, 200, 'the token verifies');
        await expectNotFirstParty(await call(after.url, 'GET', '/app/me/consents', token), 'GET /app/me/consents');
      } finally {
        await after.stop();
      }
    } finally {
      await before.close();
    }
  },
);

t.run();

/**
 * The consent step of the authorization endpoint on a real server: asked of a third-party client,
 * Allow and Deny, remembered and asked again for more, the ticket's bindings, an account changed
 * between sign-in and Allow, a form that decides once, and the consents API (own and ADMIN) with
 * what a withdrawal ends (logins with refresh tokens or without).
 */
import * as assert from 'uvu/assert';
import {
  authorizeUrl,
  decide,
  openForm,
  pageOf,
  pkce,
  redirectedTo,
  submit,
  type ServedForm,
} from '../helpers/authorize.ts';
import {
  CLIENTS,
  clientsFile,
  OPENID_PARTNER,
  OPENID_PARTNER_CLIENT,
  PARTNER,
  SERVICE,
  WEB,
  WIDGET,
} from '../helpers/clients.ts';
import { serverSuite } from '../helpers/server.ts';
import { newUserAccount } from '../helpers/accounts.ts';
import { basic, bearer, login, postToken, USERS, type TokenResponse } from '../helpers/tokens.ts';

const t = serverSuite('POST /oauth/authorize/consent and the consents API', {
  'security.clients-file': clientsFile([...CLIENTS, OPENID_PARTNER_CLIENT]),
});

type User = { username: string; password: string };
type ThirdParty = typeof PARTNER | typeof WIDGET | typeof OPENID_PARTNER;
const { challenge, verifier } = pkce();
const request = (scope?: string, client: { id: string; redirect: string } = PARTNER) => ({
  response_type: 'code',
  client_id: client.id,
  redirect_uri: client.redirect,
  state: 'state-7',
  code_challenge: challenge,
  code_challenge_method: 'S256',
  ...(scope === undefined ? {} : { scope }),
});

/** The sign-in form opened and sent: the answer, and the browser's cookie. */
async function signIn(url: string, user: User, scope?: string, client: { id: string; redirect: string } = PARTNER) {
  const form = await openForm(authorizeUrl(url, request(scope, client)));
  const res = await submit(url, form, user);
  return { res, cookie: form.cookie };
}

/** Signs in and expects the consent page: its form and the browser's cookie. */
async function consentPage(
  url: string,
  user: User,
  scope?: string,
  client: ThirdParty = PARTNER,
): Promise<{ page: ServedForm; cookie: string }> {
  const { res, cookie } = await signIn(url, user, scope, client);
  assert.is(res.status, 200, 'the consent page');
  const page = await pageOf(res);
  return { page, cookie: page.cookie ?? cookie ?? '' };
}

const redeem = (url: string, code: string, client: ThirdParty = PARTNER) =>
  postToken(
    url,
    { grant_type: 'authorization_code', code, redirect_uri: client.redirect, code_verifier: verifier },
    { Authorization: basic(client.id, client.secret) },
  );

async function adminToken(url: string): Promise<string> {
  return (await login(url, USERS.admin)).access_token;
}

/** A new USER account of this suite. */
const newAccount = (url: string) => newUserAccount(url, 'consent');

/** Allows the consent page of a sign-in; the code it sends back. */
async function allowed(url: string, user: User, scope?: string, client: ThirdParty = PARTNER): Promise<string> {
  const { page, cookie } = await consentPage(url, user, scope, client);
  const res = await decide(url, page, 'allow', cookie);
  assert.is(res.status, 303);
  const back = redirectedTo(res);
  assert.is(back.searchParams.get('state'), 'state-7');
  const code = back.searchParams.get('code');
  if (code === null) throw new Error('no code');
  return code;
}

const api = (url: string, method: string, path: string, token: string) =>
  fetch(`${url}${path}`, { method, headers: bearer(token) });

t(
  'a third-party client: after the password, the consent page with the scopes, the ticket, the page headers',
  async (c) => {
    const user = await newAccount(c.server.url);
    const { page } = await consentPage(c.server.url, user, 'read write');
    assert.is(page.headers.get('x-frame-options'), 'DENY');
    assert.match(page.headers.get('content-security-policy') ?? '', /frame-ancestors 'none'/);
    assert.is(page.headers.get('cache-control'), 'no-store');
    assert.match(page.html, /action="\/oauth\/authorize\/consent"/);
    assert.match(page.html, /name="decision" value="allow"/);
    assert.match(page.html, /name="decision" value="deny"/);
    // Each scope by its description (messages scope.read, scope.write), in the order asked.
    assert.match(page.html, /Read your data[\s\S]*Change your data/);
    assert.match(page.html, new RegExp(user.username));
    assert.ok(page.fields.get('consent_ticket'));
    assert.ok(page.fields.get('csrf_token'));
    assert.is(page.fields.get('client_id'), PARTNER.id);
    assert.is(page.fields.get('password'), null, 'the password is not carried on');
  },
);

t('the OpenID scopes in words, in the browser’s language; Allow → a token that reads UserInfo', async (c) => {
  const user = await newAccount(c.server.url);
  const { page, cookie } = await consentPage(c.server.url, user, 'openid profile email', OPENID_PARTNER);
  assert.match(
    page.html,
    /Recognise your account when you sign in[\s\S]*See your name and username[\s\S]*See your email address/,
  );
  const form = await openForm(authorizeUrl(c.server.url, request('openid email', OPENID_PARTNER)));
  const french = await pageOf(
    await submit(c.server.url, form, user, () => {}, form.cookie, { 'Accept-Language': 'fr' }),
  );
  assert.match(french.html, /<html lang="fr">/);
  assert.match(french.html, /Reconnaître votre compte lors de la connexion[\s\S]*Voir votre adresse e-mail/);
  const res = await decide(c.server.url, page, 'allow', cookie);
  const code = redirectedTo(res).searchParams.get('code') ?? '';
  const tokens = (await (await redeem(c.server.url, code, OPENID_PARTNER)).json()) as TokenResponse;
  assert.is(tokens.scope, 'openid profile email');
  const info = await fetch(`${c.server.url}/userinfo`, { headers: bearer(tokens.access_token) });
  const { updated_at: updatedAt, ...claims } = (await info.json()) as Record<string, unknown>;
  assert.type(updatedAt, 'number');
  assert.equal(claims, { sub: `account:${user.id}`, preferred_username: user.username }, 'no name and no email: none');
});

t('Allow → a code that redeems; the consent is remembered: no page the next time', async (c) => {
  const user = await newAccount(c.server.url);
  const code = await allowed(c.server.url, user, 'read');
  const res = await redeem(c.server.url, code);
  assert.is(res.status, 200);
  assert.is(((await res.json()) as TokenResponse).scope, 'read');
  const again = await signIn(c.server.url, user, 'read');
  assert.is(again.res.status, 303, 'remembered');
  assert.ok(redirectedTo(again.res).searchParams.get('code'));
  assert.is(redirectedTo(again.res).searchParams.get('iss'), c.server.config.security.jwt.issuer);
});

t('asked again for a wider scope; Allow adds it to the consent', async (c) => {
  const user = await newAccount(c.server.url);
  await allowed(c.server.url, user, 'read');
  await allowed(c.server.url, user, 'read write');
  assert.is((await signIn(c.server.url, user, 'write')).res.status, 303);
  assert.is((await signIn(c.server.url, user)).res.status, 303, 'no scope asked: every scope of the client, allowed');
  const mine = await login(c.server.url, user);
  const consents = (await (await api(c.server.url, 'GET', '/app/me/consents', mine.access_token)).json()) as {
    clientId: string;
    clientName: string;
    scopes: string[];
  }[];
  assert.equal(
    consents.map(({ clientId, clientName, scopes }) => ({ clientId, clientName, scopes })),
    [{ clientId: PARTNER.id, clientName: 'Partner reports', scopes: ['read', 'write'] }],
  );
});

t('Deny → back with access_denied, state and iss, no code; nothing remembered', async (c) => {
  const user = await newAccount(c.server.url);
  const { page, cookie } = await consentPage(c.server.url, user, 'read');
  const res = await decide(c.server.url, page, 'deny', cookie);
  assert.is(res.status, 303);
  const back = redirectedTo(res);
  assert.is(back.origin + back.pathname, PARTNER.redirect);
  assert.is(back.searchParams.get('error'), 'access_denied');
  assert.ok(back.searchParams.get('error_description'));
  assert.is(back.searchParams.get('state'), 'state-7');
  assert.is(back.searchParams.get('iss'), c.server.config.security.jwt.issuer);
  assert.is(back.searchParams.get('code'), null);
  assert.is((await signIn(c.server.url, user, 'read')).res.status, 200, 'asked again');
});

t('prompt=consent: the page again for scopes allowed before, none marked new; Allow → a code', async (c) => {
  const user = await newAccount(c.server.url);
  await allowed(c.server.url, user, 'read write');
  assert.is((await signIn(c.server.url, user, 'read')).res.status, 303, 'allowed: no page');
  const form = await openForm(authorizeUrl(c.server.url, { ...request('read'), prompt: 'consent' }));
  const res = await submit(c.server.url, form, user);
  assert.is(res.status, 200, 'the consent page, though every scope asked was allowed');
  const page = await pageOf(res);
  assert.match(page.html, /Read your data/);
  assert.not.match(page.html, /class="badge"/, 'nothing new');
  const back = redirectedTo(await decide(c.server.url, page, 'allow', page.cookie ?? form.cookie ?? ''));
  const code = back.searchParams.get('code') ?? '';
  assert.is(((await (await redeem(c.server.url, code)).json()) as TokenResponse).scope, 'read');
});

t('prompt=consent, then Deny: access_denied, and the consent given before stands', async (c) => {
  const user = await newAccount(c.server.url);
  await allowed(c.server.url, user, 'read');
  const form = await openForm(authorizeUrl(c.server.url, { ...request('read'), prompt: 'consent' }));
  const page = await pageOf(await submit(c.server.url, form, user));
  const back = redirectedTo(await decide(c.server.url, page, 'deny', page.cookie ?? form.cookie ?? ''));
  assert.is(back.searchParams.get('error'), 'access_denied');
  assert.is((await signIn(c.server.url, user, 'read')).res.status, 303, 'still allowed');
});

t('prompt=consent at a first-party client (consent: implicit): still no page', async (c) => {
  const user = await newAccount(c.server.url);
  const form = await openForm(authorizeUrl(c.server.url, { ...request('read write', WEB), prompt: 'consent' }));
  const res = await submit(c.server.url, form, user);
  assert.is(res.status, 303);
  assert.ok(redirectedTo(res).searchParams.get('code'));
});

t('a first-party client (consent: implicit) never asks', async (c) => {
  const user = await newAccount(c.server.url);
  const { res } = await signIn(c.server.url, user, 'read write', WEB);
  assert.is(res.status, 303);
  assert.ok(redirectedTo(res).searchParams.get('code'));
});

t('a decision other than allow or deny, or none → the error page', async (c) => {
  const user = await newAccount(c.server.url);
  const { page, cookie } = await consentPage(c.server.url, user, 'read');
  for (const decision of ['maybe', '']) {
    const res = await decide(c.server.url, page, decision, cookie);
    assert.is(res.status, 400);
    assert.is(res.headers.get('location'), null);
  }
  const twice = await decide(c.server.url, page, 'allow', cookie, (b) => b.append('decision', 'deny'));
  assert.is(twice.status, 400);
});

t('a tampered ticket, another request, another browser, no CSRF token → the expired page, no code', async (c) => {
  const user = await newAccount(c.server.url);
  const { page, cookie } = await consentPage(c.server.url, user, 'read');
  const ticket = page.fields.get('consent_ticket') ?? '';
  const [expiry = '', payload = '', mac = ''] = ticket.split('.');
  const otherAccount = Buffer.from(JSON.stringify([1, 0, 'admin'])).toString('base64url');
  const tampered = [
    `${Number(expiry) + 1}.${payload}.${mac}`,
    `${expiry}.${otherAccount}.${mac}`,
    `${expiry}.${payload}.${mac.slice(0, -2)}AA`,
    '',
  ];
  for (const value of tampered) {
    const res = await decide(c.server.url, page, 'allow', cookie, (b) => b.set('consent_ticket', value));
    assert.is(res.status, 400, value);
    assert.is(res.headers.get('location'), null);
    assert.match(await res.text(), /expired/);
  }
  const wider = await decide(c.server.url, page, 'allow', cookie, (b) => b.set('scope', 'read write'));
  assert.is(wider.status, 400, 'the ticket is of the request as it was');
  const noCsrf = await decide(c.server.url, page, 'allow', cookie, (b) => b.delete('csrf_token'));
  assert.is(noCsrf.status, 400);
  // Another browser: its own cookie and a CSRF token for the same request, with this browser's ticket.
  const other = await openForm(authorizeUrl(c.server.url, request('read')));
  assert.not.equal(other.cookie, cookie);
  const stolen = await decide(c.server.url, page, 'allow', other.cookie, (b) =>
    b.set('csrf_token', other.fields.get('csrf_token') ?? ''),
  );
  assert.is(stolen.status, 400, "another browser's cookie");
  assert.is(stolen.headers.get('location'), null);
  const res = await decide(c.server.url, page, 'allow', cookie);
  assert.is(res.status, 303, 'the untouched form still goes through');
});

t('an account disabled, or its password reset, between sign-in and Allow gets no code', async (c) => {
  const admin = await adminToken(c.server.url);
  const changes: Record<string, (id: number) => RequestInit & { path: string }> = {
    disabled: (id) => ({ path: `/app/admin/users/${id}`, method: 'PATCH', body: JSON.stringify({ enabled: false }) }),
    'password reset': (id) => ({
      path: `/app/admin/users/${id}/password`,
      method: 'PUT',
      body: JSON.stringify({ password: 'another-password-1' }),
    }),
  };
  for (const [name, change] of Object.entries(changes)) {
    const user = await newAccount(c.server.url);
    const { page, cookie } = await consentPage(c.server.url, user, 'read');
    const { path, ...init } = change(user.id);
    const changed = await fetch(`${c.server.url}${path}`, {
      ...init,
      headers: { ...bearer(admin), 'Content-Type': 'application/json' },
    });
    assert.ok(changed.ok, name);
    const res = await decide(c.server.url, page, 'allow', cookie);
    assert.is(res.status, 400, name);
    assert.is(res.headers.get('location'), null, name);
    assert.match(await res.text(), /Your account changed since you signed in. Sign in again./, name);
    const mine = await fetch(`${c.server.url}/app/admin/users/${user.id}/consents`, { headers: bearer(admin) });
    assert.equal(await mine.json(), [], `${name}: nothing recorded`);
  }
});

t('GET and DELETE /app/me/consents: withdrawing ends the logins of the client, and it asks again', async (c) => {
  const user = await newAccount(c.server.url);
  const tokens = (await (
    await redeem(c.server.url, await allowed(c.server.url, user, 'read'))
  ).json()) as TokenResponse;
  assert.ok(tokens.refresh_token);
  const own = (await login(c.server.url, user)).access_token;
  const listed = await api(c.server.url, 'GET', '/app/me/consents', own);
  assert.is(listed.status, 200);
  const [consent] = (await listed.json()) as { clientId: string; grantedAt: string; updatedAt: string }[];
  assert.is(consent?.clientId, PARTNER.id);
  assert.match(consent?.grantedAt ?? '', /^\d{4}-\d\d-\d\dT/);
  // The partner's own token is a third-party application's: it neither lists nor withdraws (self-service).
  assert.is((await api(c.server.url, 'GET', '/app/me/consents', tokens.access_token)).status, 403);
  const withdrawn = await api(c.server.url, 'DELETE', `/app/me/consents/${PARTNER.id}`, own);
  assert.is(withdrawn.status, 204);
  assert.equal(await (await api(c.server.url, 'GET', '/app/me/consents', own)).json(), []);
  const refreshed = await postToken(
    c.server.url,
    { grant_type: 'refresh_token', refresh_token: tokens.refresh_token ?? '' },
    { Authorization: basic(PARTNER.id, PARTNER.secret) },
  );
  assert.is(refreshed.status, 400, 'the refresh token of the login is refused');
  assert.is(((await refreshed.json()) as { error: string }).error, 'invalid_grant');
  assert.is((await api(c.server.url, 'GET', '/app/me/consents', tokens.access_token)).status, 401);
  assert.is((await api(c.server.url, 'GET', '/app/me/consents', own)).status, 200, 'other logins live on');
  const again = await api(c.server.url, 'DELETE', `/app/me/consents/${PARTNER.id}`, own);
  assert.is(again.status, 404);
  assert.is(((await again.json()) as { type: string }).type, 'urn:problem:troupe:consent.not_found');
  assert.is((await signIn(c.server.url, user, 'read')).res.status, 200, 'asked again');
});

const introspected = async (url: string, token: string, client: ThirdParty): Promise<boolean> => {
  const res = await fetch(`${url}/oauth/introspect`, {
    method: 'POST',
    headers: { Authorization: basic(client.id, client.secret), 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ token }).toString(),
  });
  return ((await res.json()) as { active: boolean }).active;
};

/** The `sid` claim of an access token: its login. */
const sidOf = (token: string): string =>
  (JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8')) as { sid: string }).sid;

t(
  'a login of a client without refresh_token: listed under sessions; a withdrawal refuses its token at once',
  async (c) => {
    const admin = await adminToken(c.server.url);
    const user = await newAccount(c.server.url);
    const tokens = (await (
      await redeem(c.server.url, await allowed(c.server.url, user, 'read', WIDGET), WIDGET)
    ).json()) as TokenResponse;
    assert.is(tokens.refresh_token, undefined);
    assert.is((await api(c.server.url, 'GET', '/app/user', tokens.access_token)).status, 200);
    assert.ok(await introspected(c.server.url, tokens.access_token, WIDGET));
    const sessions = `/app/admin/users/${user.id}/sessions`;
    const listed = (await (await api(c.server.url, 'GET', sessions, admin)).json()) as {
      sid: string;
      clientId: string;
    }[];
    assert.equal(
      listed.map((l) => [l.sid, l.clientId]),
      [[sidOf(tokens.access_token), WIDGET.id]],
    );
    const withdrawn = await api(c.server.url, 'DELETE', `/app/admin/users/${user.id}/consents/${WIDGET.id}`, admin);
    assert.is(withdrawn.status, 204);
    assert.is((await api(c.server.url, 'GET', '/app/user', tokens.access_token)).status, 401);
    assert.is(await introspected(c.server.url, tokens.access_token, WIDGET), false);
    assert.equal(await (await api(c.server.url, 'GET', sessions, admin)).json(), []);
  },
);

t('a consent form decides once: posted again, Allow or Deny, it is the expired page and no code', async (c) => {
  const user = await newAccount(c.server.url);
  const { page, cookie } = await consentPage(c.server.url, user, 'read');
  const first = await decide(c.server.url, page, 'allow', cookie);
  assert.is(first.status, 303);
  assert.ok(redirectedTo(first).searchParams.get('code'));
  for (const decision of ['allow', 'deny']) {
    const again = await decide(c.server.url, page, decision, cookie);
    assert.is(again.status, 400, decision);
    assert.is(again.headers.get('location'), null, decision);
    assert.match(await again.text(), /expired/, decision);
  }
  const denied = await consentPage(c.server.url, await newAccount(c.server.url), 'read');
  assert.is((await decide(c.server.url, denied.page, 'deny', denied.cookie)).status, 303);
  const allowAfterDeny = await decide(c.server.url, denied.page, 'allow', denied.cookie);
  assert.is(allowAfterDeny.status, 400, 'Deny spent the ticket too');
  assert.is(allowAfterDeny.headers.get('location'), null);
});

t('a consent form posted again after its consent was withdrawn grants nothing', async (c) => {
  const admin = await adminToken(c.server.url);
  const user = await newAccount(c.server.url);
  const { page, cookie } = await consentPage(c.server.url, user, 'read');
  assert.is((await decide(c.server.url, page, 'allow', cookie)).status, 303);
  const consents = `/app/admin/users/${user.id}/consents`;
  assert.is((await api(c.server.url, 'DELETE', `${consents}/${PARTNER.id}`, admin)).status, 204);
  const again = await decide(c.server.url, page, 'allow', cookie);
  assert.is(again.status, 400);
  assert.is(again.headers.get('location'), null);
  assert.equal(await (await api(c.server.url, 'GET', consents, admin)).json(), [], 'not granted again');
  assert.is((await signIn(c.server.url, user, 'read')).res.status, 200, 'asked again');
});

t('a code issued before a withdrawal is refused at its redemption', async (c) => {
  const user = await newAccount(c.server.url);
  await allowed(c.server.url, user, 'read');
  const { res } = await signIn(c.server.url, user, 'read');
  const code = redirectedTo(res).searchParams.get('code') ?? '';
  const own = (await login(c.server.url, user)).access_token;
  assert.is((await api(c.server.url, 'DELETE', `/app/me/consents/${PARTNER.id}`, own)).status, 204);
  assert.is((await redeem(c.server.url, code)).status, 400);
});

t("a third-party client's own token: 403 insufficient_scope, before its handler", async (c) => {
  const res = await postToken(
    c.server.url,
    { grant_type: 'client_credentials' },
    { Authorization: basic(SERVICE.id, SERVICE.secret) },
  );
  const token = ((await res.json()) as TokenResponse).access_token;
  for (const [method, path] of [
    ['GET', '/app/me/consents'],
    ['DELETE', `/app/me/consents/${PARTNER.id}`],
  ] as const) {
    const answer = await api(c.server.url, method, path, token);
    assert.is(answer.status, 403, `${method} ${path}`);
    assert.is(((await answer.json()) as { error: string }).error, 'insufficient_scope');
  }
  assert.is((await fetch(`${c.server.url}/app/me/consents`)).status, 401, 'no token');
});

t('ADMIN: GET and DELETE /app/admin/users/:id/consents; 403 for a USER; 404s', async (c) => {
  const admin = await adminToken(c.server.url);
  const user = await newAccount(c.server.url);
  await allowed(c.server.url, user, 'write');
  const path = `/app/admin/users/${user.id}/consents`;
  const listed = await api(c.server.url, 'GET', path, admin);
  assert.is(listed.status, 200);
  assert.equal(
    ((await listed.json()) as { clientId: string; scopes: string[] }[]).map((r) => [r.clientId, r.scopes]),
    [[PARTNER.id, ['write']]],
  );
  const asUser = (await login(c.server.url, user)).access_token;
  assert.is((await api(c.server.url, 'GET', path, asUser)).status, 403);
  assert.is((await api(c.server.url, 'DELETE', `${path}/${PARTNER.id}`, asUser)).status, 403);
  const unknown = await api(c.server.url, 'GET', '/app/admin/users/999999/consents', admin);
  assert.is(unknown.status, 404);
  assert.is(((await unknown.json()) as { type: string }).type, 'urn:problem:troupe:account.not_found');
  const noAccount = await api(c.server.url, 'DELETE', `/app/admin/users/999999/consents/${PARTNER.id}`, admin);
  assert.is(((await noAccount.json()) as { type: string }).type, 'urn:problem:troupe:account.not_found');
  const noConsent = await api(c.server.url, 'DELETE', `${path}/${WEB.id}`, admin);
  assert.is(noConsent.status, 404);
  assert.is(((await noConsent.json()) as { type: string }).type, 'urn:problem:troupe:consent.not_found');
  assert.is((await api(c.server.url, 'DELETE', `${path}/${PARTNER.id}`, admin)).status, 204);
  assert.equal(await (await api(c.server.url, 'GET', path, admin)).json(), []);
  assert.is((await signIn(c.server.url, user, 'write')).res.status, 200, 'asked again');
});

t.run();

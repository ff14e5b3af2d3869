import { hash, randomBytes } from 'node:crypto';
import * as assert from 'uvu/assert';
import { CSRF_COOKIE, SECURE_CSRF_COOKIE } from '../../http/oauth/csrf.ts';
import { decodeJwt } from 'jose';
import { authorizeUrl, codeFor, openForm, pkce, redirectedTo, submit } from '../helpers/authorize.ts';
import { CLIENTS, clientsFile, CONSOLE, SERVICE, SPA, WEB } from '../helpers/clients.ts';
import { serverSuite } from '../helpers/server.ts';
import { basic, bearer, postToken, USERS } from '../helpers/tokens.ts';

const t = serverSuite('GET and POST /oauth/authorize, grant_type=authorization_code', {
  'security.clients-file': clientsFile(CLIENTS),
  'security.login-throttle.max-failures-per-user': '3',
});

const { challenge, verifier } = pkce();
const REQUEST = {
  response_type: 'code',
  client_id: WEB.id,
  redirect_uri: WEB.redirect,
  scope: 'read',
  state: 'state-1',
  code_challenge: challenge,
  code_challenge_method: 'S256',
};
const webAuth = { client_id: WEB.id, client_secret: WEB.secret };

function redeem(url: string, code: string, over: Record<string, string> = {}, headers: Record<string, string> = {}) {
  const form = { grant_type: 'authorization_code', code, redirect_uri: WEB.redirect, code_verifier: verifier };
  return postToken(url, { ...form, ...webAuth, ...over }, headers);
}

async function errorOf(res: Response): Promise<string> {
  return ((await res.json()) as { error: string }).error;
}

function assertSecureHeaders(headers: Headers): void {
  assert.match(headers.get('content-security-policy') ?? '', /frame-ancestors 'none'/);
  assert.is(headers.get('x-frame-options'), 'DENY');
  assert.is(headers.get('cache-control'), 'no-store');
  assert.is(headers.get('referrer-policy'), 'no-referrer');
}

async function redirectedError(url: string, over: Record<string, string>, error: string): Promise<void> {
  const form = await openForm(authorizeUrl(url, { ...REQUEST, ...over }));
  assert.is(form.status, 302);
  const back = redirectedTo(form as unknown as Response);
  assert.is(back.origin + back.pathname, WEB.redirect);
  assert.is(back.searchParams.get('error'), error);
  assert.is(back.searchParams.get('state'), 'state-1');
  assert.is(back.searchParams.get('code'), null);
}

t('GET › the sign-in page: HTML of its own, no script, a CSRF cookie and token, the security headers', async (c) => {
  const form = await openForm(authorizeUrl(c.server.url, REQUEST));
  assert.is(form.status, 200);
  assert.match(form.headers.get('content-type') ?? '', /^text\/html/);
  assertSecureHeaders(form.headers);
  assert.match(form.html, /<form method="post" action="\/oauth\/authorize">/);
  assert.not.match(form.html, /<script/, 'no script');
  const loaded = [...form.html.matchAll(/(?:src|href)="([^"]*)"/g)].map((m) => m[1]);
  assert.equal(loaded, ['/oauth/sign-in/style.css'], 'nothing loaded but the stylesheet of this server');
  assert.match(form.fields.get('csrf_token') ?? '', /^\d+\.[A-Za-z0-9_-]{43}$/);
  assert.is(form.fields.get('code_challenge'), challenge);
  const cookie = form.headers.getSetCookie()[0] ?? '';
  assert.match(cookie, /httponly/i);
  assert.match(cookie, /samesite=lax/i);
});

t('GET › unknown client → 400 error page, never a redirect', async (c) => {
  const form = await openForm(authorizeUrl(c.server.url, { ...REQUEST, client_id: 'nobody' }));
  assert.is(form.status, 400);
  assert.is(form.headers.get('location'), null);
  assert.match(form.html, /Unknown client/);
  assertSecureHeaders(form.headers);
});

t('GET › unregistered redirect_uri (prefix, suffix, case, trailing slash) → 400 error page', async (c) => {
  for (const redirect_uri of [
    `${WEB.redirect}/x`,
    `${WEB.redirect}?a=1`,
    WEB.redirect.toUpperCase(),
    `${WEB.redirect}/`,
    'http://127.0.0.1:9/',
  ]) {
    const form = await openForm(authorizeUrl(c.server.url, { ...REQUEST, redirect_uri }));
    assert.is(form.status, 400, redirect_uri);
    assert.is(form.headers.get('location'), null);
    assert.match(form.html, /redirect_uri is not registered/);
  }
});

t('GET › missing code_challenge → redirect with invalid_request and state', async (c) => {
  await redirectedError(c.server.url, { code_challenge: '' }, 'invalid_request');
});

t(
  'GET › a code_challenge that is no S256 digest (too short, foreign characters) → redirect with invalid_request',
  async (c) => {
    await redirectedError(c.server.url, { code_challenge: 'abc' }, 'invalid_request');
    await redirectedError(c.server.url, { code_challenge: `${'a'.repeat(42)}=` }, 'invalid_request');
  },
);

t('GET › plain or missing code_challenge_method → redirect with invalid_request', async (c) => {
  await redirectedError(c.server.url, { code_challenge_method: 'plain' }, 'invalid_request');
  await redirectedError(c.server.url, { code_challenge_method: '' }, 'invalid_request');
});

t('GET › a scope the client does not have → redirect with invalid_scope', async (c) => {
  await redirectedError(c.server.url, { scope: 'read admin' }, 'invalid_scope');
});

t('GET › response_type other than code → redirect with unsupported_response_type', async (c) => {
  await redirectedError(c.server.url, { response_type: 'token' }, 'unsupported_response_type');
});

t('GET › a client without the authorization_code grant → redirect with unauthorized_client', async (c) => {
  const form = await openForm(
    authorizeUrl(c.server.url, { ...REQUEST, client_id: CONSOLE.id, redirect_uri: CONSOLE.redirect }),
  );
  const back = redirectedTo(form as unknown as Response);
  assert.is(back.origin + back.pathname, CONSOLE.redirect);
  assert.is(back.searchParams.get('error'), 'unauthorized_client');
});

t('GET › a repeated client_id or redirect_uri → 400 error page; another repeated parameter → redirect', async (c) => {
  const twice = (name: string) =>
    `${authorizeUrl(c.server.url, REQUEST)}&${name}=${encodeURIComponent(REQUEST[name as keyof typeof REQUEST])}`;
  for (const name of ['client_id', 'redirect_uri']) {
    const form = await openForm(twice(name));
    assert.is(form.status, 400, name);
    assert.is(form.headers.get('location'), null, name);
  }
  const repeated = await openForm(twice('scope'));
  assert.is(redirectedTo(repeated as unknown as Response).searchParams.get('error'), 'invalid_request');
});

t('GET › redirect_uri may be left out when the client has exactly one', async (c) => {
  const { redirect_uri: _, ...rest } = REQUEST;
  const form = await openForm(authorizeUrl(c.server.url, rest));
  assert.is(form.status, 200);
  const res = await submit(c.server.url, form);
  assert.is(redirectedTo(res).origin + redirectedTo(res).pathname, WEB.redirect);
});

t('GET › every redirect back carries iss (RFC 9207)', async (c) => {
  const form = await openForm(authorizeUrl(c.server.url, { ...REQUEST, response_type: 'token' }));
  assert.is(redirectedTo(form as unknown as Response).searchParams.get('iss'), c.server.config.security.jwt.issuer);
});

t('POST › signed in: 303 to the redirect_uri with code, state and iss', async (c) => {
  const res = await submit(c.server.url, await openForm(authorizeUrl(c.server.url, REQUEST)));
  assert.is(res.status, 303);
  assertSecureHeaders(res.headers);
  const back = redirectedTo(res);
  assert.is(back.origin + back.pathname, WEB.redirect);
  assert.match(back.searchParams.get('code') ?? '', /^[A-Za-z0-9_-]{43}$/);
  assert.is(back.searchParams.get('state'), 'state-1');
  assert.is(back.searchParams.get('iss'), c.server.config.security.jwt.issuer);
});

t('POST › wrong password → 400 sign-in page again with the error, no redirect', async (c) => {
  const res = await submit(c.server.url, await openForm(authorizeUrl(c.server.url, REQUEST)), {
    username: USERS.john.username,
    password: 'wrong-but-secret-password',
  });
  assert.is(res.status, 400);
  assert.is(res.headers.get('location'), null);
  assert.match(await res.text(), /Wrong username or password/);
});

t('POST › a password over 72 bytes → 400 sign-in page again saying so, not counted as a failure', async (c) => {
  const overLong = { username: USERS.admin.username, password: `${USERS.admin.password}${'x'.repeat(72)}` };
  for (let i = 0; i < 4; i += 1) {
    const res = await submit(c.server.url, await openForm(authorizeUrl(c.server.url, REQUEST)), overLong);
    assert.is(res.status, 400);
    assert.is(res.headers.get('location'), null);
    const page = await res.text();
    assert.match(page, /Passwords longer than 72 bytes are not accepted/);
    assert.not.match(page, /Wrong username or password/);
  }
  const res = await submit(c.server.url, await openForm(authorizeUrl(c.server.url, REQUEST)), USERS.admin);
  assert.is(res.status, 303, 'the throttle counted none of them');
});

t('POST › without the CSRF cookie, or with a token of another request → 400 error page', async (c) => {
  const form = await openForm(authorizeUrl(c.server.url, REQUEST));
  const noCookie = await submit(c.server.url, form, USERS.john, () => {}, '');
  assert.is(noCookie.status, 400);
  assert.is(noCookie.headers.get('location'), null);
  const otherScope = await submit(c.server.url, form, USERS.john, (body) => body.set('scope', 'read write'));
  assert.is(otherScope.status, 400);
  assert.is(otherScope.headers.get('location'), null);
  const other = await openForm(authorizeUrl(c.server.url, REQUEST));
  const foreignCookie = await submit(c.server.url, form, USERS.john, () => {}, other.cookie);
  assert.is(foreignCookie.status, 400, "another form's cookie");
});

t('POST › two sign-in pages open in one browser (two tabs): both forms sign in', async (c) => {
  const first = await openForm(authorizeUrl(c.server.url, REQUEST));
  assert.ok(first.cookie);
  const second = await openForm(authorizeUrl(c.server.url, { ...REQUEST, state: 'state-2' }), {
    Cookie: first.cookie,
  });
  assert.is(second.cookie, first.cookie, 'the browser keeps its cookie');
  for (const [form, state] of [
    [first, 'state-1'],
    [second, 'state-2'],
  ] as const) {
    const res = await submit(c.server.url, form, USERS.john, () => {}, first.cookie);
    assert.is(res.status, 303, state);
    assert.is(redirectedTo(res).searchParams.get('state'), state);
  }
});

t("POST › a cookie of the caller's choosing with a token computed without the server's key → 400", async (c) => {
  const form = await openForm(authorizeUrl(c.server.url, REQUEST));
  const chosen = randomBytes(32).toString('base64url');
  const issuedAt = Math.floor(Date.now() / 1000);
  const request = [...form.fields].filter(([name]) => name !== 'csrf_token').sort(([a], [b]) => (a < b ? -1 : 1));
  // What the token was before it was keyed: a digest anyone could compute for a cookie they planted.
  const digest = hash('sha256', JSON.stringify([chosen, issuedAt, request]), 'base64url');
  const res = await submit(
    c.server.url,
    form,
    USERS.john,
    (body) => body.set('csrf_token', `${issuedAt}.${digest}`),
    `${CSRF_COOKIE}=${chosen}`,
  );
  assert.is(res.status, 400);
  assert.is(res.headers.get('location'), null);
});

t('POST › the login throttle of the password grant applies: past the failures → 429', async (c) => {
  const wrong = { username: USERS.admin.username, password: 'wrong-but-secret-password' };
  for (let i = 0; i < 3; i += 1) await submit(c.server.url, await openForm(authorizeUrl(c.server.url, REQUEST)), wrong);
  const res = await submit(c.server.url, await openForm(authorizeUrl(c.server.url, REQUEST)), USERS.admin);
  assert.is(res.status, 429);
  assert.ok(Number(res.headers.get('retry-after')) > 0);
  const token = await postToken(c.server.url, { grant_type: 'password', ...USERS.admin });
  assert.is(token.status, 429, 'one count for both ways of signing in');
});

t('token › the code redeems once, with PKCE, for tokens with roles and a refresh token', async (c) => {
  const code = await codeFor(c.server.url, WEB.id, WEB.redirect, challenge);
  const res = await redeem(c.server.url, code);
  assert.is(res.status, 200);
  const body = (await res.json()) as Record<string, string>;
  assert.type(body['refresh_token'], 'string');
  assert.is(body['scope'], 'read write');
  const claims = decodeJwt(body['access_token'] ?? '');
  assert.match(claims.sub ?? '', /^account:[1-9][0-9]*$/);
  assert.is(claims['user_name'], 'john.doe');
  assert.is(claims['client_id'], WEB.id);
  assert.equal(claims['authorities'], ['ADMIN', 'USER']);
  assert.is((await fetch(`${c.server.url}/app/user`, { headers: bearer(body['access_token'] ?? '') })).status, 200);
  const refreshed = await postToken(
    c.server.url,
    { grant_type: 'refresh_token', refresh_token: body['refresh_token'] ?? '', ...webAuth },
    {},
  );
  assert.is(refreshed.status, 200, 'rotated as the password grant’s');
  const reused = await postToken(
    c.server.url,
    { grant_type: 'refresh_token', refresh_token: body['refresh_token'] ?? '', ...webAuth },
    {},
  );
  assert.is(await errorOf(reused), 'invalid_grant', 'reuse detected as today');
});

t('token › a code used a second time → invalid_grant, and every token issued from it is revoked', async (c) => {
  const code = await codeFor(c.server.url, WEB.id, WEB.redirect, challenge);
  const first = (await (await redeem(c.server.url, code)).json()) as Record<string, string>;
  const again = await redeem(c.server.url, code);
  assert.is(again.status, 400);
  assert.is(await errorOf(again), 'invalid_grant');
  assert.is((await fetch(`${c.server.url}/app/user`, { headers: bearer(first['access_token'] ?? '') })).status, 401);
  const refresh = await postToken(
    c.server.url,
    { grant_type: 'refresh_token', refresh_token: first['refresh_token'] ?? '', ...webAuth },
    {},
  );
  assert.is(await errorOf(refresh), 'invalid_grant');
});

t('token › wrong code_verifier, redirect_uri, client, or an unknown code → invalid_grant', async (c) => {
  const other = pkce();
  const bad = await redeem(c.server.url, await codeFor(c.server.url, WEB.id, WEB.redirect, challenge), {
    code_verifier: other.verifier,
  });
  assert.is(await errorOf(bad), 'invalid_grant');
  const wrongRedirect = await redeem(c.server.url, await codeFor(c.server.url, WEB.id, WEB.redirect, challenge), {
    redirect_uri: `${WEB.redirect}/`,
  });
  assert.is(await errorOf(wrongRedirect), 'invalid_grant');
  const spaCode = await codeFor(c.server.url, SPA.id, SPA.redirect, challenge);
  const wrongClient = await redeem(c.server.url, spaCode, { redirect_uri: SPA.redirect });
  assert.is(await errorOf(wrongClient), 'invalid_grant');
  assert.is(await errorOf(await redeem(c.server.url, 'A'.repeat(43))), 'invalid_grant');
});

t('token › an empty code_verifier → invalid_request; a client without the grant → unauthorized_client', async (c) => {
  const code = await codeFor(c.server.url, WEB.id, WEB.redirect, challenge);
  assert.is(await errorOf(await redeem(c.server.url, code, { code_verifier: '' })), 'invalid_request');
  const service = { Authorization: basic(SERVICE.id, SERVICE.secret) };
  const form = { grant_type: 'authorization_code', code, redirect_uri: WEB.redirect, code_verifier: verifier };
  assert.is(await errorOf(await postToken(c.server.url, form, service)), 'unauthorized_client');
});

t('token › a public client redeems with client_id alone; no refresh token without the grant', async (c) => {
  const code = await codeFor(c.server.url, SPA.id, SPA.redirect, challenge);
  const form = {
    grant_type: 'authorization_code',
    code,
    redirect_uri: SPA.redirect,
    code_verifier: verifier,
    client_id: SPA.id,
  };
  const res = await postToken(c.server.url, form, {});
  assert.is(res.status, 200);
  const body = (await res.json()) as Record<string, unknown>;
  assert.is(body['refresh_token'], undefined);
  assert.is(body['scope'], 'read');
});

t('introspection › a public client is 401 invalid_client (RFC 7662 §2.1); it may still revoke', async (c) => {
  const code = await codeFor(c.server.url, SPA.id, SPA.redirect, challenge);
  const form = { grant_type: 'authorization_code', code, redirect_uri: SPA.redirect, code_verifier: verifier };
  const token = String(
    ((await (await postToken(c.server.url, { ...form, client_id: SPA.id }, {})).json()) as Record<string, unknown>)[
      'access_token'
    ],
  );
  const post = (path: string, body: Record<string, string>) =>
    fetch(`${c.server.url}${path}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(body).toString(),
    });
  for (const path of ['/oauth/introspect', '/oauth/check_token']) {
    const res = await post(path, { token, client_id: SPA.id });
    assert.is(res.status, 401, path);
    assert.match(res.headers.get('www-authenticate') ?? '', /^Basic realm=/);
    assert.equal(await res.json(), {
      error: 'invalid_client',
      error_description: 'A public client cannot use this endpoint: it needs client authentication',
    });
  }
  const confidential = await post('/oauth/introspect', { token, ...webAuth });
  assert.is(confidential.status, 200, 'a confidential client is answered');
  assert.is((await fetch(`${c.server.url}/app/listAll`, { headers: bearer(token) })).status, 200);
  assert.is((await post('/oauth/revoke', { token, client_id: SPA.id })).status, 200);
  assert.is((await fetch(`${c.server.url}/app/listAll`, { headers: bearer(token) })).status, 401, 'revoked');
});

t('metadata › RFC 8414 additions for the code flow', async (c) => {
  const m = (await (await fetch(`${c.server.url}/.well-known/oauth-authorization-server`)).json()) as Record<
    string,
    unknown
  >;
  assert.is(m['authorization_endpoint'], `${c.server.config.security.jwt.issuer}/oauth/authorize`);
  assert.equal(m['code_challenge_methods_supported'], ['S256']);
  assert.equal(m['response_types_supported'], ['code']);
  assert.is(m['authorization_response_iss_parameter_supported'], true);
  assert.ok((m['grant_types_supported'] as string[]).includes('authorization_code'));
});

t.run();

const https = serverSuite('POST /oauth/authorize over HTTPS behind a trusted proxy: the __Host- cookie', {
  'security.clients-file': clientsFile(CLIENTS),
  'server.trusted-proxies': '1',
});
const HTTPS = { 'X-Forwarded-Proto': 'https' };

https('the cookie is __Host- (Secure, Path=/, no Domain), and its form signs in', async (c) => {
  const form = await openForm(authorizeUrl(c.server.url, REQUEST), HTTPS);
  const setCookie = form.headers.getSetCookie()[0] ?? '';
  assert.match(setCookie, new RegExp(`^${SECURE_CSRF_COOKIE}=[A-Za-z0-9_-]{43};`));
  assert.match(setCookie, /; path=\/(;|$)/i);
  assert.match(setCookie, /; secure/i);
  assert.match(setCookie, /; httponly/i);
  assert.not.match(setCookie, /domain=/i);
  const res = await submit(c.server.url, form, USERS.john, () => {}, form.cookie, HTTPS);
  assert.is(res.status, 303);
});

https('a cookie of the plain name (one a sibling host or the network could plant) is ignored → 400', async (c) => {
  const plain = await openForm(authorizeUrl(c.server.url, REQUEST));
  assert.match(plain.cookie ?? '', new RegExp(`^${CSRF_COOKIE}=`));
  assert.is((await submit(c.server.url, plain, USERS.john, () => {}, plain.cookie, HTTPS)).status, 400);
});

https.run();

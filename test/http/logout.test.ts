/**
 * RP-initiated logout (OpenID Connect RP-Initiated Logout 1.0) at /oauth/logout, row by row as the
 * OpenID conformance suite's RP-Initiated Logout OP plan walks it: a valid id_token_hint ends the
 * session and goes back to a registered post_logout_redirect_uri with state; a missing or foreign
 * hint asks first; a bad hint, an unregistered (or query-added) URI is the error page, never a
 * redirect; and the end is recorded as `session.ended`, with no token in the log.
 */
import bcrypt from 'bcryptjs';
import { decodeJwt } from 'jose';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { generatePrivateKey, usableKey } from '../../src/security/key-material.ts';
import { createIdTokenSigner } from '../../src/security/id-token.ts';
import { authorizeUrl, openForm, pageOf, pkce, redirectedTo, submit, type ServedForm } from '../helpers/authorize.ts';
import { clientsFile } from '../helpers/clients.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { postToken, USERS } from '../helpers/tokens.ts';
import { waitFor } from '../helpers/wait.ts';

const APP = {
  id: 'logout-app',
  secret: 'logout-app-secret',
  redirect: 'http://127.0.0.1:9/logout-app/callback',
  bye: 'https://app.example/signed-out',
  byeLoopback: 'http://127.0.0.1:9/logout-app/bye?from=op',
};
const OTHER = { id: 'logout-other', secret: 'logout-other-secret', redirect: 'http://127.0.0.1:9/other/cb' };

const registration = (c: { id: string; secret: string; redirect: string }, bye: string[]) => ({
  client_id: c.id,
  client_name: `${c.id} name`,
  client_secret: bcrypt.hashSync(c.secret, 4),
  token_endpoint_auth_method: 'client_secret_post',
  redirect_uris: [c.redirect],
  post_logout_redirect_uris: bye,
  grant_types: ['authorization_code'],
  scope: 'openid read',
  consent: 'implicit',
});

const t = suite('/oauth/logout › RP-initiated logout', {} as { server: TestServer; lines: string[] });

t.before(async (c) => {
  c.lines = [];
  const sink = { write: (line: string) => c.lines.push(line) } as unknown as NodeJS.WritableStream;
  c.server = await startTestServer(
    {
      'logging.level': 'info',
      'security.clients-file': clientsFile([
        registration(APP, [APP.bye, APP.byeLoopback]),
        registration(OTHER, ['https://other.example/bye']),
      ]),
    },
    undefined,
    sink,
  );
});
t.after(async (c) => c.server?.close());

const { challenge, verifier } = pkce();

interface SignedIn {
  /** `troupe_session=…`, as the browser sends it. */
  readonly cookie: string;
  readonly idToken: string;
}

/** Signs in at `client` with the password; the session cookie and the id_token of the code. */
async function signIn(
  base: string,
  user: { username: string; password: string } = USERS.john,
  client: { id: string; secret: string; redirect: string } = APP,
): Promise<SignedIn> {
  const query = {
    response_type: 'code',
    client_id: client.id,
    redirect_uri: client.redirect,
    scope: 'openid',
    state: 's',
    code_challenge: challenge,
    code_challenge_method: 'S256',
  };
  const form = await openForm(authorizeUrl(base, query));
  const res = await submit(base, form, user);
  assert.is(res.status, 303);
  const cookie = (res.headers.getSetCookie().find((h) => h.startsWith('troupe_session=')) ?? '').split(';')[0] ?? '';
  const code = redirectedTo(res).searchParams.get('code') ?? '';
  const token = await postToken(
    base,
    {
      grant_type: 'authorization_code',
      code,
      redirect_uri: client.redirect,
      code_verifier: verifier,
      client_id: client.id,
      client_secret: client.secret,
    },
    {},
  );
  assert.is(token.status, 200);
  return { cookie, idToken: ((await token.json()) as { id_token: string }).id_token };
}

/** Whether the session still signs in: an authorization with `prompt=none` gets a code. */
async function signedIn(base: string, cookie: string): Promise<boolean> {
  const res = await fetch(
    authorizeUrl(base, {
      response_type: 'code',
      client_id: APP.id,
      redirect_uri: APP.redirect,
      scope: 'openid',
      prompt: 'none',
      code_challenge: challenge,
      code_challenge_method: 'S256',
    }),
    { redirect: 'manual', headers: { Cookie: cookie } },
  );
  return redirectedTo(res).searchParams.has('code');
}

const logoutUrl = (base: string, params: Record<string, string>): string =>
  `${base}/oauth/logout?${new URLSearchParams(params).toString()}`;

/** GET /oauth/logout as the browser holding `cookie` sends it. */
async function logout(base: string, params: Record<string, string>, cookie = '') {
  const res = await fetch(logoutUrl(base, params), { redirect: 'manual', headers: cookie ? { Cookie: cookie } : {} });
  return pageOf(res);
}

/** POST of the confirmation page's form with `decision`, as the browser holding `cookie` sends it. */
function choose(base: string, page: ServedForm, decision: string, cookie: string, change = (_: URLSearchParams) => {}) {
  const body = new URLSearchParams(page.fields);
  body.set('decision', decision);
  change(body);
  return fetch(`${base}/oauth/logout`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', ...(cookie ? { Cookie: cookie } : {}) },
    body: body.toString(),
  });
}

/** The cookie was cleared: set again empty, in the past. */
const cleared = (headers: Headers): boolean =>
  headers.getSetCookie().some((h) => /^troupe_session=;/.test(h) && /expires=Thu, 01 Jan 1970/i.test(h));

/** The error page: 400, no Location, nothing of the refused URI in it. */
function errorPage(page: ServedForm, description: RegExp, unsaid: string[] = []): void {
  assert.is(page.status, 400);
  assert.is(page.headers.get('location'), null, 'never a redirect');
  assert.match(page.html, description);
  for (const text of unsaid) assert.not.ok(page.html.includes(text), 'the request is not echoed');
}

const ended = (c: { lines: string[] }) =>
  c.lines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l['event'] === 'session.ended');

t('discovery › end_session_endpoint in the OpenID metadata alone', async (c) => {
  const openid = (await (await fetch(`${c.server.url}/.well-known/openid-configuration`)).json()) as Record<
    string,
    unknown
  >;
  assert.is(openid['end_session_endpoint'], `${String(openid['issuer'])}/oauth/logout`);
  const oauth = (await (await fetch(`${c.server.url}/.well-known/oauth-authorization-server`)).json()) as object;
  assert.not.ok('end_session_endpoint' in oauth);
});

t(
  'GET › valid hint, registered URI, state → 303 back with state, cookie cleared, session ended, session.ended',
  async (c) => {
    const { cookie, idToken } = await signIn(c.server.url);
    assert.ok(await signedIn(c.server.url, cookie));
    const before = ended(c).length;
    const res = await logout(
      c.server.url,
      { id_token_hint: idToken, post_logout_redirect_uri: APP.bye, state: 'st-9' },
      cookie,
    );
    assert.is(res.status, 303);
    assert.is(res.headers.get('location'), `${APP.bye}?state=st-9`);
    assert.ok(cleared(res.headers), 'the cookie cleared');
    assert.is(res.headers.get('cache-control'), 'no-store');
    assert.not.ok(await signedIn(c.server.url, cookie), 'the session is over');
    await waitFor(() => ended(c).length > before, 'session.ended logged', 3000);
    const record = ended(c).at(-1) ?? {};
    assert.is(record['username'], 'john.doe');
    assert.is(record['client_id'], APP.id);
    assert.is(record['reason'], 'logout');
    assert.is(record['level'], 30);
    for (const line of c.lines) {
      assert.not.ok(line.includes(idToken), 'no id_token logged');
      assert.not.ok(line.includes(cookie.split('=')[1] ?? '-'), 'no session cookie logged');
    }
  },
);

t('GET › a registered URI keeps its own query; state is added to it', async (c) => {
  const { cookie, idToken } = await signIn(c.server.url);
  const res = await logout(
    c.server.url,
    { id_token_hint: idToken, post_logout_redirect_uri: APP.byeLoopback, state: 'a b' },
    cookie,
  );
  assert.is(res.status, 303);
  assert.is(res.headers.get('location'), `${APP.byeLoopback}&state=a+b`);
});

t('GET › -no-state: back without state', async (c) => {
  const { cookie, idToken } = await signIn(c.server.url);
  const res = await logout(c.server.url, { id_token_hint: idToken, post_logout_redirect_uri: APP.bye }, cookie);
  assert.is(res.headers.get('location'), APP.bye);
  assert.not.ok(await signedIn(c.server.url, cookie));
});

t('GET › -no-post-logout-redirect-uri: valid hint alone → 200 signed-out page, session ended', async (c) => {
  const { cookie, idToken } = await signIn(c.server.url);
  const res = await logout(c.server.url, { id_token_hint: idToken, state: 'unused' }, cookie);
  assert.is(res.status, 200);
  assert.match(res.html, /<h1>Signed out<\/h1>/);
  assert.not.ok(res.html.includes('unused'), 'state goes only with a redirect');
  assert.ok(cleared(res.headers));
  assert.not.ok(await signedIn(c.server.url, cookie));
});

t('GET › a valid hint and no session: nothing to end or ask, back at once', async (c) => {
  const { idToken } = await signIn(c.server.url);
  const res = await logout(c.server.url, { id_token_hint: idToken, post_logout_redirect_uri: APP.bye, state: 'x' });
  assert.is(res.status, 303);
  assert.is(res.headers.get('location'), `${APP.bye}?state=x`);
});

t('GET › -bad-post-logout-redirect-uri: unregistered → 400 error page, no redirect, session kept', async (c) => {
  const { cookie, idToken } = await signIn(c.server.url);
  const evil = 'https://evil.example/steal';
  const res = await logout(
    c.server.url,
    { id_token_hint: idToken, post_logout_redirect_uri: evil, state: 's' },
    cookie,
  );
  errorPage(res, /post_logout_redirect_uri is not registered for this client/, [evil, 'evil.example']);
  assert.match(res.html, /Wrong return address/);
  assert.ok(await signedIn(c.server.url, cookie), 'nothing ended');
  // Another client's registered URI is not this client's.
  const other = await logout(c.server.url, {
    id_token_hint: idToken,
    post_logout_redirect_uri: 'https://other.example/bye',
  });
  errorPage(other, /not registered for this client/);
});

t('GET › -query-added-to-post-logout-redirect-uri: compared exactly → 400', async (c) => {
  const { cookie, idToken } = await signIn(c.server.url);
  for (const uri of [
    `${APP.bye}?extra=1`,
    `${APP.bye}/`,
    APP.bye.toUpperCase(),
    APP.byeLoopback.replace('?from=op', ''),
  ]) {
    const res = await logout(c.server.url, { id_token_hint: idToken, post_logout_redirect_uri: uri }, cookie);
    errorPage(res, /post_logout_redirect_uri is not registered/);
  }
  assert.ok(await signedIn(c.server.url, cookie));
});

t('GET › -modified-id-token-hint (alg none) → 400 error page, session kept', async (c) => {
  const { cookie, idToken } = await signIn(c.server.url);
  const [header = '', payload = ''] = idToken.split('.');
  const kid = (JSON.parse(Buffer.from(header, 'base64url').toString()) as { kid: string }).kid;
  const none = Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT', kid })).toString('base64url');
  const res = await logout(
    c.server.url,
    { id_token_hint: `${none}.${payload}.`, post_logout_redirect_uri: APP.bye, state: 's' },
    cookie,
  );
  errorPage(res, /id_token_hint is not an id_token of this server/, [payload]);
  assert.ok(await signedIn(c.server.url, cookie));
});

t('GET › -bad-id-token-hint (signed by another key), malformed, or an access token → 400', async (c) => {
  const { cookie, idToken } = await signIn(c.server.url);
  const claims = decodeJwt(idToken);
  const stranger = await usableKey(generatePrivateKey('RS256'), 'RS256');
  const sign = createIdTokenSigner(async () => stranger, { issuer: String(claims.iss), validity: 600 });
  const request = { subject: String(claims.sub), clientId: APP.id, authTime: 1, accessToken: 'a' };
  const kid = (JSON.parse(Buffer.from(idToken.split('.')[0] ?? '', 'base64url').toString()) as { kid: string }).kid;
  const sameKid = createIdTokenSigner(async () => ({ ...stranger, kid }), {
    issuer: String(claims.iss),
    validity: 600,
  });
  const access = (
    (await (
      await postToken(
        c.server.url,
        { grant_type: 'password', ...USERS.john },
        { Authorization: `Basic ${Buffer.from('troupe-client:troupe-secret').toString('base64')}` },
      )
    ).json()) as { access_token: string }
  ).access_token;
  for (const hint of [await sign(request), await sameKid(request), 'not.a.token', access]) {
    const res = await logout(c.server.url, { id_token_hint: hint, post_logout_redirect_uri: APP.bye }, cookie);
    errorPage(res, /id_token_hint is not an id_token of this server/);
  }
  assert.ok(await signedIn(c.server.url, cookie));
});

t('GET › -no-id-token-hint: the confirmation page; Sign out → 303 back with state, session ended', async (c) => {
  const { cookie } = await signIn(c.server.url);
  const page = await logout(
    c.server.url,
    { client_id: APP.id, post_logout_redirect_uri: APP.bye, state: 'st-2' },
    cookie,
  );
  assert.is(page.status, 200);
  assert.match(page.html, /<h1>Sign out of troupe\?<\/h1>/);
  assert.match(page.html, /logout-app name asks to sign you out/);
  assert.match(page.html, /<form method="post" action="\/oauth\/logout">/);
  assert.is(page.headers.get('content-security-policy')?.includes("default-src 'none'"), true);
  assert.not.match(page.html, /<script/);
  assert.equal([...page.fields.keys()].sort(), ['client_id', 'csrf_token', 'post_logout_redirect_uri', 'state']);
  assert.ok(await signedIn(c.server.url, cookie), 'nothing ended before the choice');
  const res = await choose(c.server.url, page, 'logout', cookie);
  assert.is(res.status, 303);
  assert.is(res.headers.get('location'), `${APP.bye}?state=st-2`);
  assert.ok(cleared(res.headers));
  assert.not.ok(await signedIn(c.server.url, cookie));
});

t('GET › -no-params: the confirmation page; Sign out → the signed-out page', async (c) => {
  const { cookie } = await signIn(c.server.url);
  const page = await logout(c.server.url, {}, cookie);
  assert.is(page.status, 200);
  assert.match(page.html, /Do you want to sign out\?/);
  const res = await pageOf(await choose(c.server.url, page, 'logout', cookie));
  assert.is(res.status, 200);
  assert.match(res.html, /<h1>Signed out<\/h1>/);
  assert.not.ok(await signedIn(c.server.url, cookie));
});

t('GET › -only-state: the confirmation page; state is never shown nor sent anywhere but a redirect', async (c) => {
  const { cookie } = await signIn(c.server.url);
  const page = await logout(c.server.url, { state: 'only-state-value' }, cookie);
  assert.is(page.status, 200);
  const res = await pageOf(await choose(c.server.url, page, 'logout', cookie));
  assert.is(res.status, 200);
  assert.is(res.headers.get('location'), null);
  assert.not.ok(res.html.includes('only-state-value'));
  assert.not.ok(await signedIn(c.server.url, cookie));
});

t(
  "GET › a hint of another account than the session's: asked first; Stay signed in → back with state, session kept",
  async (c) => {
    const john = await signIn(c.server.url);
    const admin = await signIn(c.server.url, USERS.admin);
    const page = await logout(
      c.server.url,
      { id_token_hint: john.idToken, post_logout_redirect_uri: APP.bye, state: 'st-3' },
      admin.cookie,
    );
    assert.is(page.status, 200, 'the confirmation page');
    assert.not.ok(page.fields.has('id_token_hint'), 'the hint is not put in the page');
    assert.is(page.fields.get('client_id'), APP.id, "the client, from the hint's audience");
    assert.ok(await signedIn(c.server.url, admin.cookie));
    const stay = await choose(c.server.url, page, 'stay', admin.cookie);
    assert.is(stay.status, 303);
    assert.is(stay.headers.get('location'), `${APP.bye}?state=st-3`);
    assert.not.ok(cleared(stay.headers));
    assert.ok(await signedIn(c.server.url, admin.cookie), 'still signed in');
    const kept = await pageOf(
      await choose(c.server.url, await logout(c.server.url, {}, admin.cookie), 'stay', admin.cookie),
    );
    assert.is(kept.status, 200);
    assert.match(kept.html, /<h1>Still signed in<\/h1>/);
  },
);

t(
  'POST › the confirmation form of another session, another request, or no token → 400, asked again, session kept',
  async (c) => {
    const mine = await signIn(c.server.url);
    const theirs = await signIn(c.server.url, USERS.admin);
    const page = await logout(c.server.url, { client_id: APP.id, post_logout_redirect_uri: APP.bye }, theirs.cookie);
    for (const [cookie, change] of [
      [mine.cookie, () => {}],
      [theirs.cookie, (b: URLSearchParams) => b.set('state', 'added')],
      [theirs.cookie, (b: URLSearchParams) => b.delete('csrf_token')],
      [
        theirs.cookie,
        (b: URLSearchParams) => b.set('csrf_token', `${Math.floor(Date.now() / 1000) - 601}.${'A'.repeat(43)}`),
      ],
    ] as const) {
      const again = await pageOf(await choose(c.server.url, page, 'logout', cookie, change));
      assert.is(again.status, 400);
      assert.match(again.html, /This page had expired/);
      assert.ok(again.fields.get('csrf_token'), 'a fresh form');
    }
    assert.ok(await signedIn(c.server.url, mine.cookie));
    assert.ok(await signedIn(c.server.url, theirs.cookie));
  },
);

t('POST › a decision repeated or other than logout or stay → 400 error page', async (c) => {
  const { cookie } = await signIn(c.server.url);
  const page = await logout(c.server.url, {}, cookie);
  errorPage(await pageOf(await choose(c.server.url, page, 'maybe', cookie)), /decision must be logout or stay/);
  const twice = await choose(c.server.url, page, 'logout', cookie, (b) => b.append('decision', 'stay'));
  errorPage(await pageOf(twice), /decision must be logout or stay/);
  assert.ok(await signedIn(c.server.url, cookie));
});

t('POST › the logout request by a form POST is answered as the GET', async (c) => {
  const { cookie, idToken } = await signIn(c.server.url);
  const res = await fetch(`${c.server.url}/oauth/logout`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', Cookie: cookie },
    body: new URLSearchParams({ id_token_hint: idToken, post_logout_redirect_uri: APP.bye, state: 'p' }).toString(),
  });
  assert.is(res.status, 303);
  assert.is(res.headers.get('location'), `${APP.bye}?state=p`);
  assert.not.ok(await signedIn(c.server.url, cookie));
});

t(
  'GET › client_id not the hint’s audience, unknown client_id, a URI with no client, a repeated parameter → 400',
  async (c) => {
    const { cookie, idToken } = await signIn(c.server.url);
    errorPage(
      await logout(c.server.url, { id_token_hint: idToken, client_id: OTHER.id }, cookie),
      /client_id is not the audience of id_token_hint/,
    );
    errorPage(await logout(c.server.url, { client_id: 'nobody' }, cookie), /Unknown client/);
    errorPage(
      await logout(c.server.url, { post_logout_redirect_uri: APP.bye }, cookie),
      /post_logout_redirect_uri needs client_id or id_token_hint/,
      [APP.bye],
    );
    const twice = await pageOf(
      await fetch(`${c.server.url}/oauth/logout?state=a&state=b&client_id=${APP.id}`, { redirect: 'manual' }),
    );
    errorPage(twice, /Parameter state is repeated/);
    assert.ok(await signedIn(c.server.url, cookie));
  },
);

t('GET › logout_hint and unknown parameters are ignored; ui_locales chooses the language', async (c) => {
  const page = await logout(c.server.url, { logout_hint: 'john.doe', extra: 'x', ui_locales: 'de' });
  assert.is(page.status, 200);
  assert.match(page.html, /<html lang="de">/);
  assert.match(page.html, /Von troupe abmelden\?/);
  assert.is(page.fields.get('ui_locales'), 'de', 'kept through the form');
});

t('HEAD › never signs out: 405', async (c) => {
  const { cookie, idToken } = await signIn(c.server.url);
  const res = await fetch(logoutUrl(c.server.url, { id_token_hint: idToken }), {
    method: 'HEAD',
    headers: { Cookie: cookie },
  });
  assert.is(res.status, 405);
  assert.ok(await signedIn(c.server.url, cookie));
});

t.run();

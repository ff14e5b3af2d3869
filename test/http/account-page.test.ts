/**
 * The account page, /oauth/account: through the sign-in session, the applications the account
 * allowed (scopes in words) with Remove access, and Sign out everywhere; without one, its own
 * sign-in form. Every change is a POST with a CSRF token bound to the browser and the account.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { THEMED_CSP } from '../../http/oauth/pages/themed-pages.ts';
import { authorizeUrl, openForm, pageOf, pkce, submit } from '../helpers/authorize.ts';
import {
  accountPage,
  allowPartner,
  csrfOf,
  Jar,
  postAccount,
  refreshPartner,
  signInToAccount,
} from '../helpers/account-page.ts';
import { CLIENTS, clientsFile, PARTNER, WEB } from '../helpers/clients.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { bearer, login, USERS } from '../helpers/tokens.ts';
import { waitFor } from '../helpers/wait.ts';

type Line = Record<string, unknown>;
const t = suite('/oauth/account › the account page', {} as { server: TestServer; lines: string[] });

t.before(async (c) => {
  c.lines = [];
  const sink = { write: (line: string) => c.lines.push(line) } as unknown as NodeJS.WritableStream;
  c.server = await startTestServer(
    {
      'logging.level': 'info',
      'security.clients-file': clientsFile(CLIENTS),
      'security.login-throttle.max-failures-per-user': '3',
    },
    undefined,
    sink,
  );
});
t.after(async (c) => c.server?.close());

/** The records of `event` for `username` (those `which` picks), once at least one is written. */
async function events(
  c: { lines: string[] },
  event: string,
  username: string,
  which: (l: Line) => boolean = () => true,
): Promise<Line[]> {
  const find = () =>
    c.lines
      .map((l) => JSON.parse(l) as Line)
      .filter((l) => l['event'] === event && l['username'] === username && which(l));
  await waitFor(() => find().length > 0, `${event} logged`, 3000);
  return find();
}

/** A browser signed in on the account page as `user`. */
async function signedIn(base: string, user: { username: string; password: string } = USERS.john): Promise<Jar> {
  const jar = new Jar();
  const res = await signInToAccount(base, jar, user);
  assert.is(res.status, 303);
  assert.is(res.headers.get('location'), '/oauth/account');
  assert.ok(jar.get('troupe_session'), 'the session cookie');
  return jar;
}

/** WEB's authorization in the browser of `jar`: a code at once through its session, or the sign-in form. */
async function authorizeWeb(base: string, jar: Jar) {
  return openForm(
    authorizeUrl(base, {
      response_type: 'code',
      client_id: WEB.id,
      redirect_uri: WEB.redirect,
      state: 's',
      code_challenge: pkce().challenge,
      code_challenge_method: 'S256',
    }),
    jar.header(),
  );
}

t('without a session: the themed sign-in form, no script, the pages’ headers, in German for German', async (c) => {
  const page = await accountPage(c.server.url, new Jar());
  assert.is(page.status, 200);
  assert.match(page.html, /<form method="post" action="\/oauth\/account">/);
  assert.match(page.html, /name="password"/);
  assert.ok(page.fields.get('csrf_token'), 'a CSRF token');
  assert.match(page.cookie ?? '', /^troupe_authorize=/);
  assert.match(page.headers.getSetCookie().join(), /Path=\/oauth\/account/i);
  assert.is(page.headers.get('content-security-policy'), THEMED_CSP);
  assert.is(page.headers.get('x-frame-options'), 'DENY');
  assert.is(page.headers.get('cache-control'), 'no-store');
  assert.not.match(page.html, /<script/i);
  assert.not.match(page.html, /Remove access/);
  const german = await accountPage(c.server.url, new Jar(), { 'Accept-Language': 'de-DE,de;q=0.9' });
  assert.match(german.html, /<html lang="de">/);
  assert.match(german.html, /Ihr Konto/);
  const french = await openForm(`${c.server.url}/oauth/account?ui_locales=fr`);
  assert.match(french.html, /Votre compte/);
});

t('signed in on the page: a session as at /oauth/authorize; the applications allowed, scopes in words', async (c) => {
  await allowPartner(c.server.url, USERS.john, 'read');
  const jar = await signedIn(c.server.url);
  const noClient = (l: Line) => !('client_id' in l);
  const [started] = await events(c, 'session.started', USERS.john.username, noClient);
  assert.is(started?.['client_address'], '127.0.0.1');
  await events(c, 'login.succeeded', USERS.john.username, noClient);
  const page = await accountPage(c.server.url, jar);
  assert.is(page.status, 200);
  assert.match(page.html, /Signed in as john\.doe/);
  assert.match(page.html, /<h3 id="app-0">Partner reports<\/h3>/);
  assert.match(page.html, /Read your data/);
  assert.not.match(page.html, /Change your data/, 'only the scopes allowed');
  assert.match(page.html, /Allowed on [A-Z][a-z]+ \d{1,2}, \d{4}/);
  assert.match(page.html, /<input type="hidden" name="client_id" value="partner-app">/);
  assert.match(page.html, /Remove access/);
  assert.match(page.html, /Sign out everywhere/);
  assert.is(page.headers.get('content-security-policy'), THEMED_CSP);
  assert.not.match(page.html, /<script/i);
  const web = await authorizeWeb(c.server.url, jar);
  assert.is(web.status, 302, 'the page’s session signs the browser in at the authorization endpoint');
  const german = await accountPage(c.server.url, jar, { 'Accept-Language': 'de' });
  assert.match(german.html, /Ihre Daten lesen/);
  assert.match(german.html, /Zugriff entfernen/);
});

t('the sign-in refuses a wrong password (400), a form not served to the browser (400), and throttles', async (c) => {
  const jar = new Jar();
  const form = await accountPage(c.server.url, jar);
  const wrong = await postAccount(c.server.url, '', jar, {
    csrf_token: csrfOf(form),
    username: 'jane.roe',
    password: 'not-her-password',
  });
  assert.is(wrong.status, 400);
  assert.match(await wrong.text(), /Wrong username or password/);
  assert.is(jar.get('troupe_session'), undefined);
  for (const empty of [
    { username: '', password: 'x' },
    { username: 'jane.roe', password: '' },
  ]) {
    const res = await postAccount(c.server.url, '', jar, { csrf_token: csrfOf(form), ...empty });
    assert.is(res.status, 400, JSON.stringify(empty));
    assert.match(await res.text(), /Wrong username or password/);
  }
  const forged = await postAccount(c.server.url, '', new Jar(), {
    csrf_token: csrfOf(form),
    ...USERS.john,
  });
  assert.is(forged.status, 400, 'another browser’s token');
  assert.match(await forged.text(), /This page had expired/);
  assert.equal(
    forged.headers.getSetCookie().filter((s) => s.startsWith('troupe_session=')),
    [],
  );
  for (let i = 0; i < 2; i++)
    await postAccount(c.server.url, '', jar, { csrf_token: csrfOf(form), username: 'jane.roe', password: 'x' });
  const throttled = await postAccount(c.server.url, '', jar, {
    csrf_token: csrfOf(form),
    username: 'jane.roe',
    password: 'x',
  });
  assert.is(throttled.status, 429);
  assert.ok(Number(throttled.headers.get('retry-after')) > 0);
  assert.match(await throttled.text(), /Too many failed sign-ins/);
});

t('Remove access: only with the page’s token; then the consent and the application’s login are gone', async (c) => {
  const tokens = await allowPartner(c.server.url, USERS.admin, 'read write');
  const jar = await signedIn(c.server.url, USERS.admin);
  const page = await accountPage(c.server.url, jar);
  assert.match(page.html, /Partner reports/);
  for (const token of ['', 'x', `${Math.floor(Date.now() / 1000)}.${'A'.repeat(43)}`]) {
    const refused = await postAccount(c.server.url, '/withdraw', jar, { csrf_token: token, client_id: PARTNER.id });
    assert.is(refused.status, 400, `token ${JSON.stringify(token)}`);
    const html = await refused.text();
    assert.match(html, /This page had expired/);
    assert.match(html, /Partner reports/, 'nothing changed');
  }
  const { status, next } = await refreshPartner(c.server.url, tokens.refresh_token ?? '');
  assert.is(status, 200, 'the login lives');
  const removed = await postAccount(c.server.url, '/withdraw', jar, {
    csrf_token: csrfOf(page),
    client_id: PARTNER.id,
  });
  assert.is(removed.status, 303);
  assert.is(removed.headers.get('location'), '/oauth/account');
  const [withdrawn] = await events(c, 'consent.withdrawn', USERS.admin.username);
  assert.is(withdrawn?.['client_id'], PARTNER.id);
  const after = await accountPage(c.server.url, jar);
  assert.not.match(after.html, /Partner reports/);
  assert.match(after.html, /You have not allowed any application/);
  assert.is((await refreshPartner(c.server.url, next)).status, 400, 'the application’s login ended, as by the API');
  const own = await fetch(`${c.server.url}/app/me/consents`, {
    headers: bearer((await login(c.server.url, USERS.admin)).access_token),
  });
  assert.equal(await own.json(), [], 'the API sees it gone');
  const again = await postAccount(c.server.url, '/withdraw', jar, { csrf_token: csrfOf(after), client_id: PARTNER.id });
  assert.is(again.status, 303, 'nothing left to withdraw');
});

t('one account’s page cannot touch another’s consent, nor serve another’s forms', async (c) => {
  const johns = await allowPartner(c.server.url, USERS.john, 'read');
  const admin = await signedIn(c.server.url, USERS.admin);
  const adminPage = await accountPage(c.server.url, admin);
  const tried = await postAccount(c.server.url, '/withdraw', admin, {
    csrf_token: csrfOf(adminPage),
    client_id: PARTNER.id,
  });
  assert.is(tried.status, 303);
  assert.is((await refreshPartner(c.server.url, johns.refresh_token ?? '')).status, 200, 'john’s login lives');
  const john = await signedIn(c.server.url, USERS.john);
  assert.match((await accountPage(c.server.url, john)).html, /Partner reports/, 'john’s consent stays');
  // The admin's page's token, in a browser whose session is john's (the same CSRF cookie value).
  john.set('troupe_authorize', admin.get('troupe_authorize') ?? '');
  const crossed = await postAccount(c.server.url, '/withdraw', john, {
    csrf_token: csrfOf(adminPage),
    client_id: PARTNER.id,
  });
  assert.is(crossed.status, 400, 'a form of another account’s page');
  assert.match((await accountPage(c.server.url, john)).html, /Partner reports/);
});

t('without a session that counts, the forms change nothing: 303 to the page', async (c) => {
  const jar = await signedIn(c.server.url);
  const page = await accountPage(c.server.url, jar);
  const stranger = new Jar();
  stranger.set('troupe_authorize', jar.get('troupe_authorize') ?? '');
  for (const path of ['/withdraw', '/sign-out']) {
    const res = await postAccount(c.server.url, path, stranger, { csrf_token: csrfOf(page), client_id: PARTNER.id });
    assert.is(res.status, 303, path);
    assert.is(res.headers.get('location'), '/oauth/account');
  }
  assert.match((await accountPage(c.server.url, jar)).html, /Sign out everywhere/, 'still signed in');
});

t('Sign out everywhere: every session of the account ends; the next authorization asks for the password', async (c) => {
  const tokens = await allowPartner(c.server.url, USERS.john, 'read');
  const here = await signedIn(c.server.url);
  const there = await signedIn(c.server.url);
  assert.is((await authorizeWeb(c.server.url, there)).status, 302, 'the other browser is signed in');
  const page = await accountPage(c.server.url, here);
  const missing = await postAccount(c.server.url, '/sign-out', here, { csrf_token: '' });
  assert.is(missing.status, 400, 'no token');
  const out = await postAccount(c.server.url, '/sign-out', here, { csrf_token: csrfOf(page) });
  assert.is(out.status, 200);
  const html = await out.text();
  assert.match(html, /You are signed out in every browser/);
  assert.not.match(html, /<script/i);
  assert.is(out.headers.get('content-security-policy'), THEMED_CSP);
  assert.is(here.get('troupe_session'), undefined, 'the cookie cleared');
  const [ended] = await events(c, 'session.ended', USERS.john.username);
  assert.is(ended?.['reason'], 'sign_out_everywhere');
  const form = await authorizeWeb(c.server.url, there);
  assert.is(form.status, 200, 'the other browser is asked for the password');
  assert.match(form.html, /name="password"/);
  assert.match((await accountPage(c.server.url, there)).html, /name="password"/, 'and its account page too');
  assert.is((await refreshPartner(c.server.url, tokens.refresh_token ?? '')).status, 200, 'applications keep access');
});

t('the consent page’s note links to the account page', async (c) => {
  const { challenge } = pkce();
  const form = await openForm(
    authorizeUrl(c.server.url, {
      response_type: 'code',
      client_id: PARTNER.id,
      redirect_uri: PARTNER.redirect,
      scope: 'write',
      state: 's',
      code_challenge: challenge,
      code_challenge_method: 'S256',
    }),
  );
  const consent = await pageOf(await submit(c.server.url, form, USERS.john));
  assert.match(consent.html, /<a href="\/oauth\/account">You can withdraw this access at any time\.<\/a>/);
});

t.run();

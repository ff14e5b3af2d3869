/**
 * The sign-in session in Chromium: a person signs in once on the page, and a second application
 * gets its code with no page at all (the cookie HttpOnly and SameSite=Lax, out of script's reach);
 * `prompt=login` and `max_age=0` show the sign-in page again and move `auth_time`, a `max_age` the
 * session is within does not; `prompt=none` in a browser that never signed in comes back with
 * `login_required`, and one with another account's `id_token_hint` with `login_required` too.
 */
import bcrypt from 'bcryptjs';
import { decodeJwt } from 'jose';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { pkce } from '../helpers/authorize.ts';
import { BROWSER_REQUIRED, CHROMIUM_MISSING, CHROMIUM_PATH, launchChromium } from '../helpers/chromium.ts';
import { clientsFile } from '../helpers/clients.ts';
import { startRedirectTarget, type RedirectTarget } from '../helpers/redirect-target.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { skipSuite } from '../helpers/skip.ts';
import { postToken, USERS } from '../helpers/tokens.ts';
import { waitFor } from '../helpers/wait.ts';

const NAME = 'the sign-in session in a real browser: single sign-on, prompt, max_age';
const APPS = [
  { id: 'sso-planner', secret: 'sso-planner-secret' },
  { id: 'sso-ledger', secret: 'sso-ledger-secret' },
] as const;
type App = (typeof APPS)[number];

const ctx = {} as { server: TestServer; target: RedirectTarget; browser: Browser | undefined };
const t = suite(NAME, ctx);

t.before(async () => {
  ctx.target = await startRedirectTarget();
  ctx.server = await startTestServer({
    'security.clients-file': clientsFile(
      APPS.map((app) => ({
        client_id: app.id,
        client_secret: bcrypt.hashSync(app.secret, 4),
        token_endpoint_auth_method: 'client_secret_post',
        redirect_uris: [ctx.target.callback],
        grant_types: ['authorization_code'],
        scope: 'openid',
        consent: 'implicit',
      })),
    ),
  });
});
t.after(async () => {
  await ctx.browser?.close();
  await ctx.server?.close();
  await ctx.target?.close();
});

const { challenge, verifier } = pkce();

const authorizeUrl = (app: App, more: Record<string, string> = {}): string =>
  `${ctx.server.url}/oauth/authorize?${new URLSearchParams({
    response_type: 'code',
    client_id: app.id,
    redirect_uri: ctx.target.callback,
    scope: 'openid',
    state: 'st-sso',
    code_challenge: challenge,
    code_challenge_method: 'S256',
    ...more,
  }).toString()}`;

/** A fresh browser context and its page, counting the pages of the authorization endpoint it is shown. */
async function browserPage(): Promise<{ context: BrowserContext; page: Page; pagesShown: () => number }> {
  ctx.browser ??= await launchChromium();
  const context = await ctx.browser.newContext();
  const page = await context.newPage();
  let shown = 0;
  page.on('response', (r) => {
    if (r.url().startsWith(`${ctx.server.url}/oauth/authorize`) && r.status() === 200) shown += 1;
  });
  return { context, page, pagesShown: () => shown };
}

/** Goes to `url`; where the browser lands at the application (with or without a page between). */
async function visit(page: Page, url: string): Promise<URL> {
  await Promise.all([page.waitForURL(`${ctx.target.callback}?**`), page.goto(url)]);
  return new URL(page.url());
}

/** Goes to `url`, which shows the sign-in page, and signs in as john.doe; where the browser lands. */
async function signIn(page: Page, url: string): Promise<URL> {
  await page.goto(url);
  await page.fill('#username', USERS.john.username);
  await page.fill('#password', USERS.john.password);
  await Promise.all([page.waitForURL(`${ctx.target.callback}?**`), page.click('button[type=submit]')]);
  return new URL(page.url());
}

/** The id_token the code of `back` redeems for, decoded (the signature is other suites' business). */
async function idTokenOf(app: App, back: URL) {
  const res = await postToken(
    ctx.server.url,
    {
      grant_type: 'authorization_code',
      code: back.searchParams.get('code') ?? '',
      redirect_uri: ctx.target.callback,
      code_verifier: verifier,
      client_id: app.id,
      client_secret: app.secret,
    },
    {},
  );
  assert.is(res.status, 200);
  return decodeJwt(((await res.json()) as { id_token: string }).id_token);
}

const [PLANNER, LEDGER] = APPS;

t('signed in at one application, another gets its code with no page; script never sees the cookie', async () => {
  const { context, page, pagesShown } = await browserPage();
  const first = await idTokenOf(PLANNER, await signIn(page, authorizeUrl(PLANNER)));
  assert.is(pagesShown(), 1, 'the sign-in page, once');
  const cookie = (await context.cookies(ctx.server.url)).find((c) => c.name === 'troupe_session');
  assert.ok(cookie, 'the session cookie');
  assert.equal([cookie.httpOnly, cookie.sameSite, cookie.path], [true, 'Lax', '/']);
  assert.not.match(String(await page.evaluate('document.cookie')), /troupe_session/, 'no script reads it');

  const back = await visit(page, authorizeUrl(LEDGER));
  assert.is(pagesShown(), 1, 'no page for the second application');
  assert.is(back.searchParams.get('state'), 'st-sso');
  const second = await idTokenOf(LEDGER, back);
  assert.equal([second.sub, second.auth_time, second.aud], [first.sub, first.auth_time, LEDGER.id]);
  await context.close();
});

t('prompt=login and max_age=0 show the sign-in page and move auth_time; a max_age within does not', async () => {
  const { context, page, pagesShown } = await browserPage();
  const first = await idTokenOf(PLANNER, await signIn(page, authorizeUrl(PLANNER)));
  const authTime = Number(first.auth_time);
  await waitFor(() => Math.floor(Date.now() / 1000) > authTime, 'the clock past the first sign-in', 1500);

  const again = await idTokenOf(LEDGER, await signIn(page, authorizeUrl(LEDGER, { prompt: 'login' })));
  assert.is(pagesShown(), 2, 'prompt=login: the sign-in page although signed in');
  assert.ok(Number(again.auth_time) > authTime, 'auth_time is the new sign-in');
  assert.is(again.sub, first.sub);

  const within = await idTokenOf(PLANNER, await visit(page, authorizeUrl(PLANNER, { max_age: '3600' })));
  assert.is(pagesShown(), 2, 'max_age=3600: no page');
  assert.is(within.auth_time, again.auth_time);

  await signIn(page, authorizeUrl(PLANNER, { max_age: '0' }));
  assert.is(pagesShown(), 3, 'max_age=0: the sign-in page');
  await context.close();
});

t('prompt=none: login_required without a session, and with a hint of another account', async () => {
  const { context, page, pagesShown } = await browserPage();
  const none = await visit(page, authorizeUrl(PLANNER, { prompt: 'none' }));
  assert.equal([none.searchParams.get('error'), none.searchParams.get('state')], ['login_required', 'st-sso']);
  assert.is(none.searchParams.get('iss'), ctx.server.config.security.jwt.issuer);
  assert.is(pagesShown(), 0, 'no page at all');

  // An id_token of admin's, then john.doe signs in in this browser: admin's hint cannot pass silently.
  const other = await browserPage();
  await other.page.goto(authorizeUrl(PLANNER));
  await other.page.fill('#username', USERS.admin.username);
  await other.page.fill('#password', USERS.admin.password);
  await Promise.all([other.page.waitForURL(`${ctx.target.callback}?**`), other.page.click('button[type=submit]')]);
  const res = await postToken(
    ctx.server.url,
    {
      grant_type: 'authorization_code',
      code: new URL(other.page.url()).searchParams.get('code') ?? '',
      redirect_uri: ctx.target.callback,
      code_verifier: verifier,
      client_id: PLANNER.id,
      client_secret: PLANNER.secret,
    },
    {},
  );
  const adminHint = ((await res.json()) as { id_token: string }).id_token;
  await other.context.close();

  await signIn(page, authorizeUrl(PLANNER));
  const hinted = await visit(page, authorizeUrl(PLANNER, { prompt: 'none', id_token_hint: adminHint }));
  assert.is(hinted.searchParams.get('error'), 'login_required');
  assert.not.ok(hinted.searchParams.get('code'));
  await context.close();
});

if (CHROMIUM_PATH === undefined && !BROWSER_REQUIRED) skipSuite(NAME, CHROMIUM_MISSING);
else t.run();

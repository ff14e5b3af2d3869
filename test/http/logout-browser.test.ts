/**
 * RP-initiated logout in Chromium: a person signed in at an application is sent to /oauth/logout
 * without an id_token_hint; the confirmation page (themed, translated, no script, nothing loaded
 * from elsewhere, axe-clean) asks first; Sign out lands back at the application's registered URI
 * with its state and the session is gone, Stay signed in lands there too with the session kept.
 */
import bcrypt from 'bcryptjs';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { assertAccessible } from '../helpers/axe.ts';
import { pkce } from '../helpers/authorize.ts';
import { BROWSER_REQUIRED, CHROMIUM_MISSING, CHROMIUM_PATH, launchChromium } from '../helpers/chromium.ts';
import { clientsFile } from '../helpers/clients.ts';
import { startRedirectTarget, type RedirectTarget } from '../helpers/redirect-target.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { skipSuite } from '../helpers/skip.ts';
import { USERS } from '../helpers/tokens.ts';

const NAME = 'RP-initiated logout in a real browser';
const APP = { id: 'browser-logout-app', name: 'Acme Planner' };

const ctx = {} as { server: TestServer; target: RedirectTarget; browser: Browser | undefined; bye: string };
const t = suite(NAME, ctx);

t.before(async () => {
  ctx.target = await startRedirectTarget();
  ctx.bye = `${ctx.target.callback}?signed=out`;
  ctx.server = await startTestServer({
    'security.clients-file': clientsFile([
      {
        client_id: APP.id,
        client_name: APP.name,
        client_secret: bcrypt.hashSync('browser-logout-secret', 4),
        redirect_uris: [ctx.target.callback],
        post_logout_redirect_uris: [ctx.bye],
        grant_types: ['authorization_code'],
        scope: 'openid',
        consent: 'implicit',
      },
    ]),
  });
});
t.after(async () => {
  await ctx.browser?.close();
  await ctx.server?.close();
  await ctx.target?.close();
});

const authorizeUrl = (more: Record<string, string> = {}): string =>
  `${ctx.server.url}/oauth/authorize?${new URLSearchParams({
    response_type: 'code',
    client_id: APP.id,
    redirect_uri: ctx.target.callback,
    scope: 'openid',
    state: 'in',
    code_challenge: pkce().challenge,
    code_challenge_method: 'S256',
    ...more,
  }).toString()}`;

const logoutUrl = (): string =>
  `${ctx.server.url}/oauth/logout?${new URLSearchParams({
    client_id: APP.id,
    post_logout_redirect_uri: ctx.bye,
    state: 'st-browser',
  }).toString()}`;

/** A browser context signed in as john.doe at the application: the sign-in page filled, back at the callback. */
async function signedInPage(locale?: string): Promise<{ context: BrowserContext; page: Page; stray: string[] }> {
  ctx.browser ??= await launchChromium();
  const context = await ctx.browser.newContext(locale === undefined ? {} : { locale });
  const page = await context.newPage();
  const stray: string[] = [];
  const ours = [ctx.server.url, new URL(ctx.target.callback).origin];
  page.on('request', (r) => {
    if (!ours.some((origin) => r.url().startsWith(origin))) stray.push(r.url());
  });
  page.on('response', (r) => {
    if (r.status() >= 400) stray.push(`${r.url()} (${r.status()})`);
  });
  await page.goto(authorizeUrl());
  await page.fill('#username', USERS.john.username);
  await page.fill('#password', USERS.john.password);
  await Promise.all([page.waitForURL(`${ctx.target.callback}?**`), page.click('button[type=submit]')]);
  assert.ok(new URL(page.url()).searchParams.get('code'), 'signed in');
  return { context, page, stray };
}

/** Where `prompt=none` lands: a code while the session lasts, `login_required` after it. */
async function silently(page: Page): Promise<URL> {
  await page.goto(authorizeUrl({ prompt: 'none' }));
  await page.waitForURL(`${ctx.target.callback}?**`);
  return new URL(page.url());
}

t(
  'no hint → the confirmation page; Sign out → back at the registered URI with state; the session is gone',
  async () => {
    const { context, page, stray } = await signedInPage();
    await page.goto(logoutUrl());
    assert.is(await page.title(), 'Sign out of troupe? · troupe');
    assert.is((await page.locator('h1').innerText()).trim(), 'Sign out of troupe?');
    assert.match(await page.locator('.intro').innerText(), /Acme Planner asks to sign you out/);
    assert.is(await page.locator('script').count(), 0, 'no script');
    await assertAccessible(page, 'the logout confirmation page');
    await Promise.all([
      page.waitForURL(`${ctx.target.callback}?**`),
      page.getByRole('button', { name: 'Sign out' }).click(),
    ]);
    const back = new URL(page.url());
    assert.is(back.searchParams.get('signed'), 'out', 'the registered URI, its own query kept');
    assert.is(back.searchParams.get('state'), 'st-browser');
    const cookies = await context.cookies(ctx.server.url);
    assert.not.ok(
      cookies.some((c) => c.name === 'troupe_session'),
      'the browser forgot the session cookie',
    );
    assert.is((await silently(page)).searchParams.get('error'), 'login_required', 'signed out');
    assert.equal(stray, [], 'nothing loaded from elsewhere, nothing failed');
    await context.close();
  },
);

t('Stay signed in → back at the registered URI with state; the session is kept', async () => {
  const { context, page } = await signedInPage();
  await page.goto(logoutUrl());
  await Promise.all([
    page.waitForURL(`${ctx.target.callback}?**`),
    page.getByRole('button', { name: 'Stay signed in' }).click(),
  ]);
  assert.is(new URL(page.url()).searchParams.get('state'), 'st-browser');
  assert.ok((await silently(page)).searchParams.get('code'), 'still signed in');
  await context.close();
});

t('the page reads in the browser’s language, with the keyboard alone', async () => {
  const { context, page } = await signedInPage('fr-FR');
  await page.goto(`${ctx.server.url}/oauth/logout`);
  assert.match((await page.locator('html').getAttribute('lang')) ?? '', /^fr$/);
  assert.is((await page.locator('h1').innerText()).trim(), 'Se déconnecter de troupe ?');
  await assertAccessible(page, 'the logout confirmation page in French');
  await page.getByRole('button', { name: 'Se déconnecter' }).focus();
  await Promise.all([page.waitForLoadState('load'), page.keyboard.press('Enter')]);
  await page.waitForSelector('h1:has-text("Déconnecté")');
  assert.match(await page.locator('.intro').innerText(), /Vous êtes déconnecté de troupe/);
  await context.close();
});

if (CHROMIUM_PATH === undefined && !BROWSER_REQUIRED) skipSuite(NAME, CHROMIUM_MISSING);
else t.run();

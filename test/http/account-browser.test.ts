/**
 * The account page in Chromium: a person signs in through an application's code flow and allows
 * it, opens /oauth/account from the consent page's link target, sees the application and its
 * scopes, removes its access (the application's refresh token stops working), and signs out
 * everywhere (the next authorization asks for the password). Each page passes axe-core's WCAG 2.2
 * A and AA rules and loads nothing from elsewhere.
 */
import type { Browser } from 'playwright-core';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import * as client from 'openid-client';
import { assertAccessible } from '../helpers/axe.ts';
import { BROWSER_REQUIRED, CHROMIUM_MISSING, CHROMIUM_PATH, launchChromium } from '../helpers/chromium.ts';
import { authorizationUrl, startLibrarySetup, type LibrarySetup } from '../helpers/oauth-library.ts';
import { skipSuite } from '../helpers/skip.ts';
import { USERS } from '../helpers/tokens.ts';

const NAME = 'the account page in a real browser';
const CLIENT_NAME = 'Acme Planner';

const ctx = {} as { setup: LibrarySetup; browser: Browser | undefined };
const t = suite(NAME, ctx);

t.before(async () => {
  // A third-party application: the consent step is shown, and the account page lists it by name.
  ctx.setup = await startLibrarySetup({ web: { consent: 'explicit', client_name: CLIENT_NAME } });
});
t.after(async () => {
  await ctx.browser?.close();
  await ctx.setup?.close();
});

t('sign in through the code flow, open the account page, remove access, sign out everywhere', async () => {
  ctx.browser = await launchChromium();
  const context = await ctx.browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  const { server, target } = ctx.setup;
  const stray: string[] = [];
  page.on('request', (r) => {
    if (!r.url().startsWith(server.url) && !r.url().startsWith(target.callback)) stray.push(r.url());
  });

  const start = await authorizationUrl(ctx.setup);
  await page.goto(start.url.href);
  await page.fill('#username', USERS.john.username);
  await page.fill('#password', USERS.john.password);
  await Promise.all([page.waitForURL(`${server.url}/oauth/authorize`), page.click('button[type=submit]')]);
  assert.is(await page.title(), 'Allow access? · troupe');
  const link = page.locator('a[href="/oauth/account"]');
  assert.is(await link.textContent(), 'You can withdraw this access at any time.');
  await Promise.all([page.waitForURL(`${target.callback}?**`), page.click('button[value=allow]')]);
  const tokens = await client.authorizationCodeGrant(ctx.setup.web, new URL(page.url()), {
    pkceCodeVerifier: start.verifier,
    expectedState: start.state,
  });
  assert.ok(tokens.refresh_token, 'the application’s login');

  await page.goto(`${server.url}/oauth/account`);
  assert.is(await page.title(), 'Your account · troupe');
  assert.match((await page.textContent('.account')) ?? '', /Signed in as john\.doe/);
  assert.is(await page.textContent('.application h3'), CLIENT_NAME);
  assert.equal(await page.locator('.application .scope-text').allTextContents(), [
    'Read your data',
    'Change your data',
  ]);
  await assertAccessible(page, 'the account page');

  await Promise.all([
    page.waitForURL(`${server.url}/oauth/account`),
    page.getByRole('button', { name: 'Remove access' }).click(),
  ]);
  assert.is(await page.locator('.application').count(), 0);
  assert.match((await page.textContent('main')) ?? '', /You have not allowed any application/);
  const refused = await client.refreshTokenGrant(ctx.setup.web, tokens.refresh_token ?? '').then(
    () => 'refreshed',
    (error: unknown) => (error instanceof client.ResponseBodyError ? error.error : String(error)),
  );
  assert.is(refused, 'invalid_grant', 'the application’s refresh token is refused');

  await Promise.all([
    page.waitForURL(`${server.url}/oauth/account/sign-out`),
    page.getByRole('button', { name: 'Sign out everywhere' }).click(),
  ]);
  assert.is(await page.title(), 'Signed out · troupe');
  await assertAccessible(page, 'the signed-out page');
  const cookies = await context.cookies(server.url);
  assert.not.ok(
    cookies.some((c) => c.name.endsWith('troupe_session')),
    'the session cookie is gone',
  );

  const again = await authorizationUrl(ctx.setup);
  await page.goto(again.url.href);
  assert.is(await page.title(), 'Sign in · troupe', 'the next authorization asks for the password');
  await page.goto(`${server.url}/oauth/account`);
  assert.is(await page.title(), 'Your account · troupe');
  assert.is(await page.locator('#password').count(), 1, 'the account page offers its sign-in');
  await assertAccessible(page, 'the account page’s sign-in');
  assert.equal(stray, [], 'nothing loaded from elsewhere');
  await context.close();
});

if (CHROMIUM_PATH === undefined && !BROWSER_REQUIRED) skipSuite(NAME, CHROMIUM_MISSING);
else t.run();

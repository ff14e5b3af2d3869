/**
 * The authorization-code flow in a real browser: Chromium follows an authorization URL that
 * openid-client built, the user fills the sign-in page, the browser lands on the application's
 * local redirect target, and the library redeems the code (PKCE, state and RFC 9207 iss checked).
 */
import type { Browser } from 'playwright-core';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import * as client from 'openid-client';
import { BROWSER_REQUIRED, CHROMIUM_MISSING, CHROMIUM_PATH, launchChromium } from '../helpers/chromium.ts';
import { authorizationUrl, startLibrarySetup, type LibrarySetup } from '../helpers/oauth-library.ts';
import { skipSuite } from '../helpers/skip.ts';
import { bearer, USERS } from '../helpers/tokens.ts';

const NAME = 'the authorization-code flow in a real browser';

const ctx = {} as { setup: LibrarySetup; browser: Browser | undefined };
const t = suite(NAME, ctx);

t.before(async () => {
  ctx.setup = await startLibrarySetup();
});
t.after(async () => {
  await ctx.browser?.close();
  await ctx.setup?.close();
});

t('Chromium signs in on the page; the library redeems the code; the token opens /app/user', async () => {
  ctx.browser = await launchChromium();
  const page = await ctx.browser.newPage({ javaScriptEnabled: false });
  const start = await authorizationUrl(ctx.setup);
  const foreign: string[] = [];
  page.on('request', (r) => {
    if (!r.url().startsWith(ctx.setup.server.url) && !r.url().startsWith(ctx.setup.target.callback))
      foreign.push(r.url());
  });
  await page.goto(start.url.href);
  assert.is(await page.title(), 'Sign in · troupe');
  await page.fill('#username', USERS.john.username);
  await page.fill('#password', USERS.john.password);
  await Promise.all([page.waitForURL(`${ctx.setup.target.callback}?**`, { timeout: 20_000 }), page.click('button')]);
  assert.is(await page.textContent('#landed'), 'Back at the application');
  const landed = new URL(page.url());
  assert.is(landed.searchParams.get('iss'), ctx.setup.server.config.security.jwt.issuer);
  const tokens = await client.authorizationCodeGrant(ctx.setup.web, landed, {
    pkceCodeVerifier: start.verifier,
    expectedState: start.state,
  });
  const user = await fetch(`${ctx.setup.server.url}/app/user`, { headers: bearer(tokens.access_token) });
  assert.is(user.status, 200);
  assert.equal(foreign, [], 'nothing loaded from elsewhere');
  await page.close();
});

if (CHROMIUM_PATH === undefined && !BROWSER_REQUIRED) skipSuite(NAME, CHROMIUM_MISSING);
else t.run();

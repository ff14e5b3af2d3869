import type { Browser, Locator, Page } from 'playwright-core';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { BROWSER_REQUIRED, CHROMIUM_MISSING, CHROMIUM_PATH, launchChromium } from '../helpers/chromium.ts';
import { closedPort } from '../helpers/ports.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { login, USERS } from '../helpers/tokens.ts';
import { skipSuite } from '../helpers/skip.ts';

const NAME = '/docs in a real browser';

const ctx = {} as { server: TestServer; browser: Browser | undefined };
const t = suite(NAME, ctx);

/** Closes the Authorize dialog, runs the operation `op` (its element's selector) and answers its status. */
async function closeDialogAndTryOut(page: Page, op: string): Promise<string> {
  await page.locator('.modal-ux button.close-modal').first().click();
  await page.click(`${op} .opblock-summary`);
  await page.click(`${op} .try-out__btn`);
  await page.click(`${op} .execute`);
  const status = page.locator(`${op} .live-responses-table tbody .response-col_status`);
  await status.first().waitFor({ timeout: 10_000 });
  return (await status.first().innerText()).trim();
}

t.before(async () => {
  // The issuer is the address the page is browsed at: the code flow comes back to its /docs.
  const port = await closedPort();
  ctx.server = await startTestServer({
    'server.port': String(port),
    'security.jwt.issuer': `http://127.0.0.1:${port}`,
  });
});

interface Rect {
  readonly top: number;
  readonly bottom: number;
  readonly height: number;
}
interface Shown {
  getBoundingClientRect(): Rect;
  closest(selector: string): Shown | null;
}

/** Whether the element of `locator` lies within the window and the dialog's scrolled content. */
async function inView(page: Page, locator: Locator): Promise<boolean> {
  const height = page.viewportSize()?.height ?? 0;
  return locator.evaluate((el: Shown, windowHeight: number) => {
    const r = el.getBoundingClientRect();
    const box = el.closest('.modal-ux-content')?.getBoundingClientRect() ?? { top: 0, bottom: windowHeight };
    return r.height > 0 && r.top >= Math.max(0, box.top) - 1 && r.bottom <= Math.min(windowHeight, box.bottom) + 1;
  }, height);
}

/** The Authorize dialog's block of the flow `flow` (`authorizationCode`, `password`). */
const flowBlock = (page: Page, flow: string) =>
  page.locator('.modal-ux .auth-container').filter({ has: page.locator(`h4:has-text("${flow}")`) });
t.after(async () => {
  await ctx.browser?.close();
  await ctx.server?.close();
});

t('the page lists the three services\' operations and a "try it out" call to /health succeeds', async () => {
  ctx.browser = await launchChromium();
  const page = await ctx.browser.newPage();
  const failed: string[] = [];
  page.on('requestfailed', (r) => failed.push(r.url()));
  await page.goto(`${ctx.server.url}/docs`);
  await page.waitForSelector('#operations-tag-secured', { timeout: 20_000 });
  for (const tag of ['secured', 'employee', 'userdata', 'operations'])
    assert.ok(await page.isVisible(`#operations-tag-${tag}`), tag);
  assert.ok(await page.isVisible('#operations-employee-postApiEmployeeSearch'));
  assert.ok(await page.isVisible('#operations-userdata-getApiUsersActivity'));
  await page.click('#operations-operations-getHealth .opblock-summary');
  await page.click('#operations-operations-getHealth .try-out__btn');
  await page.click('#operations-operations-getHealth .execute');
  const response = page.locator(
    '#operations-operations-getHealth .live-responses-table tbody .response-col_description pre',
  );
  await response.first().waitFor({ timeout: 10_000 });
  const text = await response.first().innerText();
  assert.match(text, /"status": ?"ok"/, text.slice(0, 500));
  assert.equal(
    failed.filter((u) => !u.startsWith(ctx.server.url)),
    [],
    'no request left this server',
  );
  await page.close();
});

t('the Authorize dialog opens at the sign-in; a pasted bearer token then opens a secured route', async () => {
  ctx.browser ??= await launchChromium();
  const page = await ctx.browser.newPage();
  const { access_token: token } = await login(ctx.server.url);
  await page.goto(`${ctx.server.url}/docs`);
  await page.waitForSelector('#operations-tag-secured', { timeout: 20_000 });
  await page.click('.auth-wrapper .btn.authorize');
  const username = page.locator('#oauth_username');
  await username.waitFor({ timeout: 10_000 });
  assert.is(await page.evaluate<string>('document.activeElement?.id'), 'oauth_username', 'the sign-in has the focus');
  assert.ok(await username.isVisible(), 'scrolled to the sign-in');
  assert.is(await page.inputValue('input[data-name="clientId"]'), 'troupe-client', 'the client id is filled in');
  await page.fill('input[aria-label="auth-bearer-value"]', token);
  await page.locator('.modal-ux .auth-container > form button.authorize').first().click();
  const op = '#operations-secured-getAppListAll';
  assert.is(await closeDialogAndTryOut(page, op), '200');
  const curl = await page.locator(`${op} .curl-command`).first().innerText();
  assert.ok(curl.includes(`Authorization: Bearer ${token}`), 'the pasted token was sent');
  await page.close();
});

t('signing in through the dialog (the password grant, at this server) opens a secured route', async () => {
  ctx.browser ??= await launchChromium();
  const page = await ctx.browser.newPage();
  await page.goto(`${ctx.server.url}/docs`);
  await page.waitForSelector('#operations-tag-secured', { timeout: 20_000 });
  await page.click('.auth-wrapper .btn.authorize');
  await page.locator('#oauth_username').waitFor({ timeout: 10_000 });
  await page.fill('#oauth_username', 'john.doe');
  await page.fill('#oauth_password', 'john-password');
  await flowBlock(page, 'password').locator('input[data-name="clientSecret"]').fill('troupe-secret');
  await flowBlock(page, 'password').locator('button[aria-label="Apply given OAuth2 credentials"]').click();
  await page.locator('.modal-ux button[aria-label="Remove authorization"]').last().waitFor({ timeout: 10_000 });
  assert.ok(
    await inView(page, flowBlock(page, 'password').locator('h6:has-text("Authorized")')),
    '"Authorized" is in view',
  );
  assert.is(await closeDialogAndTryOut(page, '#operations-secured-getAppUser'), '200');
  await page.close();
});

t("Authorize with the code flow and PKCE: troupe's sign-in page, back to /docs, then a secured route", async () => {
  ctx.browser ??= await launchChromium();
  const page = await ctx.browser.newPage();
  const sent: string[] = [];
  page.on('request', (r) => {
    if (r.url().endsWith('/oauth/token')) sent.push(r.postData() ?? '');
  });
  await page.goto(`${ctx.server.url}/docs`);
  await page.waitForSelector('#operations-tag-secured', { timeout: 20_000 });
  await page.click('.auth-wrapper .btn.authorize');
  const block = flowBlock(page, 'authorizationCode with PKCE');
  await block.waitFor({ timeout: 10_000 });
  assert.is(
    await block.locator('input[data-name="clientId"]').inputValue(),
    'troupe-client',
    'the client id is filled in',
  );
  assert.is(await block.locator('input[data-name="clientSecret"]').inputValue(), '', 'no secret in the page');
  assert.match(
    await block.innerText(),
    /security\.jwt\.client-secret is unset it is the development secret, troupe-secret/,
  );
  await block.locator('input[data-name="clientSecret"]').fill('troupe-secret');
  const [popup] = await Promise.all([
    page.waitForEvent('popup'),
    block.locator('button[aria-label="Apply given OAuth2 credentials"]').click(),
  ]);
  await popup.waitForSelector('#username', { timeout: 10_000 });
  const authorizeUrl = new URL(popup.url());
  assert.is(authorizeUrl.pathname, '/oauth/authorize');
  assert.is(authorizeUrl.searchParams.get('code_challenge_method'), 'S256');
  assert.is(authorizeUrl.searchParams.get('redirect_uri'), `${ctx.server.url}/docs/oauth2-redirect.html`);
  await popup.fill('#username', USERS.john.username);
  await popup.fill('#password', USERS.john.password);
  await Promise.all([popup.waitForEvent('close', { timeout: 20_000 }), popup.click('button')]);
  await block.locator('button[aria-label="Remove authorization"]').waitFor({ timeout: 10_000 });
  assert.ok(await inView(page, block.locator('h6:has-text("Authorized")')), '"Authorized" is in view');
  assert.ok(await inView(page, block.locator('button[aria-label="Remove authorization"]')), 'and its Logout button');
  assert.is(sent.length, 1, 'one token request');
  const form = new URLSearchParams(sent[0]);
  assert.is(form.get('grant_type'), 'authorization_code');
  assert.match(form.get('code_verifier') ?? '', /^[A-Za-z0-9._~-]{43,128}$/);
  const op = '#operations-secured-getAppUser';
  assert.is(await closeDialogAndTryOut(page, op), '200');
  const curl = await page.locator(`${op} .curl-command`).first().innerText();
  assert.match(curl, /Authorization: Bearer ey/, 'the token of the code flow was sent');
  await page.close();
});

if (CHROMIUM_PATH === undefined && !BROWSER_REQUIRED) skipSuite(NAME, CHROMIUM_MISSING);
else t.run();

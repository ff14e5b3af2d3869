import type { Browser } from 'playwright-core';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { BROWSER_REQUIRED, CHROMIUM_MISSING, CHROMIUM_PATH, launchChromium } from '../helpers/chromium.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { skipSuite } from '../helpers/skip.ts';

const NAME = '/docs in a real browser';

const ctx = {} as { server: TestServer; browser: Browser | undefined };
const t = suite(NAME, ctx);

t.before(async () => {
  ctx.server = await startTestServer();
});
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

if (CHROMIUM_PATH === undefined && !BROWSER_REQUIRED) skipSuite(NAME, CHROMIUM_MISSING);
else t.run();

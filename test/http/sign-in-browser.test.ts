/**
 * The pages a person sees at the authorization endpoint, in Chromium: each passes axe-core's WCAG
 * 2.2 A and AA rules in the light and the dark scheme at phone and desktop widths, loads nothing
 * from elsewhere, and is screenshotted for review; the flow can be completed with the keyboard alone.
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import * as client from 'openid-client';
import { assertAccessible, runAxe } from '../helpers/axe.ts';
import { BROWSER_REQUIRED, CHROMIUM_MISSING, CHROMIUM_PATH, launchChromium } from '../helpers/chromium.ts';
import { WEB } from '../helpers/clients.ts';
import { authorizationUrl, startLibrarySetup, type LibrarySetup } from '../helpers/oauth-library.ts';
import { screenshots } from '../helpers/screenshots.ts';
import { skipSuite } from '../helpers/skip.ts';
import { bearer, USERS } from '../helpers/tokens.ts';

const NAME = 'the sign-in, consent and error pages in a real browser';

const ctx = {} as { setup: LibrarySetup; browser: Browser | undefined };
const t = suite(NAME, ctx);
const shots = screenshots('sign-in');

t.before(async () => {
  ctx.setup = await startLibrarySetup();
});
t.after(async () => {
  await ctx.browser?.close();
  await ctx.setup?.close();
});

/** One browser for the suite, started by the first test that needs it (a missing one fails that test). */
async function browser(): Promise<Browser> {
  ctx.browser ??= await launchChromium();
  return ctx.browser;
}

type Scheme = 'light' | 'dark';
const WIDTHS = [390, 1280] as const;

interface Watched {
  readonly page: Page;
  readonly context: BrowserContext;
  /** Requests to anywhere but the server and the application, and failed ones (but the page's own). */
  readonly stray: string[];
  /** Console errors (a resource refused by the Content-Security-Policy is one). */
  readonly errors: string[];
}

async function open(scheme: Scheme, options: { locale?: string } = {}): Promise<Watched> {
  const context = await (
    await browser()
  ).newContext({
    colorScheme: scheme,
    viewport: { width: 1280, height: 800 },
    ...options,
  });
  const page = await context.newPage();
  const stray: string[] = [];
  const errors: string[] = [];
  const ours = [ctx.setup.server.url, new URL(ctx.setup.target.callback).origin];
  page.on('request', (r) => {
    if (!ours.some((origin) => r.url().startsWith(origin))) stray.push(r.url());
  });
  page.on('requestfailed', (r) => stray.push(`${r.url()} (${r.failure()?.errorText ?? 'failed'})`));
  // A page's own status (400 for an error page) is no fault; a stylesheet's or an image's is.
  page.on('response', (r) => {
    if (r.status() >= 400 && !r.request().isNavigationRequest()) stray.push(`${r.url()} (${r.status()})`);
  });
  page.on('console', (m) => {
    if (m.type() === 'error' && !m.text().startsWith('Failed to load resource: the server responded'))
      errors.push(m.text());
  });
  return { page, context, stray, errors };
}

/** The server's address with `query` as the authorization endpoint's query. */
const authorizeAt = (query: string): string => `${ctx.setup.server.url}/oauth/authorize?${query}`;

async function submitSignIn(page: Page, username: string, password: string): Promise<void> {
  await page.fill('#username', username);
  await page.fill('#password', password);
  await Promise.all([page.waitForLoadState('load'), page.click('button[type=submit]')]);
}

interface PageCase {
  /** The screenshots' name. */
  readonly name: string;
  /** Its screenshots at both widths in the light scheme go to docs/images/ as `<doc>-<width>.png`. */
  readonly doc?: string;
  /** Brings `page` to the page under test and checks what it must say. */
  show(page: Page, context: BrowserContext): Promise<void>;
}

/** The error page: its OAuth error code in small print. */
async function errorPage(page: Page, code: string): Promise<void> {
  assert.ok((await page.locator('body').innerText()).includes(code), `${code} shown`);
  assert.is(await page.locator('form').count(), 0, 'no form on the error page');
}

const PAGES: readonly PageCase[] = [
  {
    name: 'sign-in',
    doc: 'sign-in',
    async show(page) {
      await page.goto((await authorizationUrl(ctx.setup)).url.href);
      assert.ok(await page.isVisible('#username'));
      assert.ok(await page.isVisible('#password'));
    },
  },
  {
    name: 'sign-in-wrong-password',
    async show(page) {
      await page.goto((await authorizationUrl(ctx.setup)).url.href);
      await submitSignIn(page, USERS.john.username, 'not-the-password');
      assert.is(await page.inputValue('#username'), USERS.john.username, 'the username is kept');
      assert.is(await page.inputValue('#password'), '', 'the password is not');
      assert.ok(await page.isVisible('[role=alert]'), 'the error is announced');
    },
  },
  {
    name: 'error-unknown-client',
    doc: 'error',
    async show(page) {
      await page.goto(authorizeAt('response_type=code&client_id=no-such-client'));
      await errorPage(page, 'invalid_client');
    },
  },
  {
    name: 'error-redirect-uri',
    async show(page) {
      const query = new URLSearchParams({
        response_type: 'code',
        client_id: WEB.id,
        redirect_uri: 'http://127.0.0.1:9/elsewhere',
      });
      await page.goto(authorizeAt(query.toString()));
      await errorPage(page, 'invalid_request');
    },
  },
  {
    name: 'error-expired',
    async show(page, context) {
      await page.goto((await authorizationUrl(ctx.setup)).url.href);
      await context.clearCookies();
      await submitSignIn(page, USERS.john.username, USERS.john.password);
      await errorPage(page, 'invalid_request');
    },
  },
  {
    name: 'error-request',
    async show(page) {
      await page.goto(authorizeAt(`response_type=code&client_id=${WEB.id}&client_id=${WEB.id}`));
      await errorPage(page, 'invalid_request');
    },
  },
];

t(
  'the accessibility check sees a violation where there is one (an unlabelled field, an image without text)',
  async () => {
    const watched = await open('light');
    await watched.page.setContent(
      '<!doctype html><html lang="en"><title>t</title><main><h1>t</h1><input id="x"></main></html>',
    );
    const found = await runAxe(watched.page);
    assert.ok(
      found.violations.some((v) => v.id === 'label' && v.targets.includes('#x')),
      JSON.stringify(found.violations),
    );
    await watched.context.close();
  },
);

/** Every page has one heading and shows nothing from elsewhere. */
async function checkPage(watched: Watched, what: string): Promise<void> {
  assert.is(await watched.page.locator('h1').count(), 1, `${what}: one <h1>`);
  assert.equal(watched.stray, [], `${what}: nothing requested from elsewhere, nothing failed`);
  assert.equal(watched.errors, [], `${what}: no console error (nothing refused by the CSP)`);
}

for (const c of PAGES)
  t(`${c.name}: no WCAG 2.2 A/AA violation, light and dark, at ${WIDTHS.join(' and ')} px; screenshots`, async () => {
    for (const scheme of ['light', 'dark'] as const) {
      const watched = await open(scheme);
      await c.show(watched.page, watched.context);
      for (const width of WIDTHS) {
        const what = `${c.name} (${scheme}, ${width} px)`;
        await watched.page.setViewportSize({ width, height: 800 });
        await checkPage(watched, what);
        await assertAccessible(watched.page, what);
        const name = `${c.name}-${width}${scheme === 'dark' ? '-dark' : ''}`;
        await shots.take(watched.page, name, scheme === 'light' && c.doc ? `${c.doc}-${width}` : undefined);
      }
      await watched.context.close();
    }
  });

/** The focused element, and whether its focus is drawn (an outline or a box shadow). */
interface Focus {
  readonly element: string;
  readonly visible: boolean;
}

const FOCUS = `(() => {
  const e = document.activeElement;
  if (!e || e === document.body) return { element: 'body', visible: false };
  const s = getComputedStyle(e);
  const outline = s.outlineStyle !== 'none' && parseFloat(s.outlineWidth) > 0;
  const name = e.tagName.toLowerCase() + (e.id ? '#' + e.id : '') + (e.getAttribute('value') ? '[value=' + e.getAttribute('value') + ']' : '');
  return { element: name, visible: outline || s.boxShadow !== 'none' };
})()`;

/**
 * Presses Tab until `selector` has the focus (at most `max` times), each focused element's focus
 * drawn; answers the presses.
 */
async function tabTo(page: Page, selector: string, max = 8): Promise<number> {
  for (let presses = 1; presses <= max; presses++) {
    await page.keyboard.press('Tab');
    const focus = await page.evaluate<Focus>(FOCUS);
    assert.ok(focus.visible, `the focus on ${focus.element} is visible`);
    if (await page.evaluate<boolean>(`document.activeElement?.matches(${JSON.stringify(selector)}) === true`))
      return presses;
  }
  assert.unreachable(`${selector} not reached with ${max} presses of Tab`);
  return max;
}

/** From the application's link to the sign-in page, and through it, with the keyboard alone. */
async function signInByKeyboard(page: Page, url: URL): Promise<void> {
  await page.goto(ctx.setup.target.home(url.href));
  await tabTo(page, '#start');
  await Promise.all([page.waitForURL(`${ctx.setup.server.url}/oauth/authorize?**`), page.keyboard.press('Enter')]);
  await tabTo(page, '#username');
  await page.keyboard.type(USERS.john.username);
  assert.is(await tabTo(page, '#password', 1), 1, 'the password follows the username');
  await page.keyboard.type(USERS.john.password);
  await page.keyboard.press('Enter');
}

t('keyboard alone: from the application link, sign in; the code redeems', async () => {
  const watched = await open('light');
  const start = await authorizationUrl(ctx.setup);
  await Promise.all([
    watched.page.waitForURL(`${ctx.setup.target.callback}?**`, { timeout: 20_000 }),
    signInByKeyboard(watched.page, start.url),
  ]);
  const tokens = await client.authorizationCodeGrant(ctx.setup.web, new URL(watched.page.url()), {
    pkceCodeVerifier: start.verifier,
    expectedState: start.state,
  });
  const user = await fetch(`${ctx.setup.server.url}/app/user`, { headers: bearer(tokens.access_token) });
  assert.is(user.status, 200);
  await watched.context.close();
});

if (CHROMIUM_PATH === undefined && !BROWSER_REQUIRED) skipSuite(NAME, CHROMIUM_MISSING);
else t.run();

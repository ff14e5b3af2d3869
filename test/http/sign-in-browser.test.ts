/**
 * The pages a person sees at the authorization endpoint, in Chromium: each passes axe-core's WCAG
 * 2.2 A and AA rules in the light and the dark scheme at phone and desktop widths, loads nothing
 * from elsewhere, and is screenshotted for review; the flow can be completed with the keyboard alone.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import * as client from 'openid-client';
import { assertAccessible, runAxe } from '../helpers/axe.ts';
import { BROWSER_REQUIRED, CHROMIUM_MISSING, CHROMIUM_PATH, launchChromium } from '../helpers/chromium.ts';
import { WEB } from '../helpers/clients.ts';
import { authorizationUrl, startLibrarySetup, type LibrarySetup } from '../helpers/oauth-library.ts';
import { screenshots } from '../helpers/screenshots.ts';
import { tempDir } from '../helpers/server.ts';
import { skipSuite } from '../helpers/skip.ts';
import { bearer, USERS } from '../helpers/tokens.ts';

const NAME = 'the sign-in, consent and error pages in a real browser';

const CLIENT_NAME = 'Acme Planner';

const ctx = {} as { setup: LibrarySetup; themed: LibrarySetup | undefined; browser: Browser | undefined };
const t = suite(NAME, ctx);
const shots = screenshots('sign-in');

t.before(async () => {
  // A third-party application: the consent step is shown (its name, not its id, on the pages).
  ctx.setup = await startLibrarySetup({ web: { consent: 'explicit', client_name: CLIENT_NAME } });
});
t.after(async () => {
  await ctx.browser?.close();
  await ctx.themed?.close();
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

/** A page in a new context of the `scheme`, watched for what it loads; `locale` sets Accept-Language. */
async function open(scheme: Scheme, options: { locale?: string; setup?: LibrarySetup } = {}): Promise<Watched> {
  const setup = options.setup ?? ctx.setup;
  const chromium = await browser();
  const context = await chromium.newContext({
    colorScheme: scheme,
    viewport: { width: 1280, height: 800 },
    ...(options.locale === undefined ? {} : { locale: options.locale }),
  });
  const page = await context.newPage();
  const stray: string[] = [];
  const errors: string[] = [];
  const ours = [setup.server.url, new URL(setup.target.callback).origin];
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

/** A deployment's branding: its name, logo and colour, and a theme folder with its own stylesheet and texts. */
const THEME = {
  product: 'Acme Rooms',
  primary: '#0b6e4f',
  primaryRgb: 'rgb(11, 110, 79)',
  submit: 'Continue to Acme Rooms',
  /** The theme's page background in each scheme: its stylesheet, not the default, is in use. */
  background: { light: 'rgb(251, 247, 239)', dark: 'rgb(27, 26, 23)' },
} as const;

/** Replaces the default stylesheet whole; the configured colour comes as `--primary` and `--on-primary`. */
const THEME_CSS = `:root { color-scheme: light dark; --text: #1d1b16; --line: #6b6256; --alert: #a1251b; }
@media (prefers-color-scheme: dark) { :root { --text: #f2efe8; --line: #a39a8c; --alert: #ffb4ab; } }
body { margin: 0; font: 1rem/1.5 Georgia, serif; background: #fbf7ef; color: var(--text); }
@media (prefers-color-scheme: dark) { body { background: #1b1a17; } }
main { max-width: 28rem; margin: 2rem auto; padding: 1.5rem; }
.brand { display: flex; align-items: center; gap: 0.75rem; }
.logo { width: 3rem; height: 3rem; }
label { display: block; margin-top: 1rem; font-weight: bold; }
input[type='text'], input[type='password'] { width: 100%; box-sizing: border-box; padding: 0.6rem; font: inherit;
  border: 2px solid var(--line); border-radius: 4px; background: transparent; color: inherit; }
button { margin-top: 1.5rem; min-height: 2.75rem; padding: 0.6rem 1.4rem; font: inherit; border: 0; border-radius: 4px;
  background: var(--primary); color: var(--on-primary); }
.problem { color: var(--alert); }
a { color: inherit; display: inline-block; padding: 0.5rem 0; }
:focus-visible { outline: 3px solid var(--text); outline-offset: 2px; }
`;

const LOGO_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" width="48" height="48" viewBox="0 0 48 48">' +
  '<rect width="48" height="48" rx="10" fill="#0b6e4f"/><path d="M12 34 24 12l12 22z" fill="#fff"/></svg>';

/** The server with {@link THEME}, started once by the first test that needs it. */
async function themedSetup(): Promise<LibrarySetup> {
  if (ctx.themed !== undefined) return ctx.themed;
  const dir = tempDir('troupe-theme-');
  mkdirSync(join(dir, 'messages'));
  writeFileSync(join(dir, 'style.css'), THEME_CSS);
  writeFileSync(join(dir, 'messages', 'en.json'), JSON.stringify({ 'signIn.submit': THEME.submit }));
  writeFileSync(join(dir, 'logo.svg'), LOGO_SVG);
  ctx.themed = await startLibrarySetup({
    web: { consent: 'implicit' },
    properties: {
      'security.sign-in.theme': dir,
      'security.sign-in.product-name': THEME.product,
      'security.sign-in.logo': join(dir, 'logo.svg'),
      'security.sign-in.primary-color': THEME.primary,
      'security.sign-in.support-url': 'https://help.example.com/sign-in',
    },
  });
  return ctx.themed;
}

/** The computed style `property` (camelCase) of the first element of `selector`. */
const computed = (page: Page, selector: string, property: string): Promise<string> =>
  page.evaluate<string>(`getComputedStyle(document.querySelector(${JSON.stringify(selector)})).${property}`);

/** A page of {@link THEME}: its name, its logo loaded, its support link. */
async function themedPage(page: Page): Promise<void> {
  assert.ok((await page.title()).includes(THEME.product), 'the name in the title');
  const logo = page.locator('main img');
  assert.ok(await logo.isVisible(), 'the logo is shown');
  assert.ok((await page.evaluate<number>("document.querySelector('main img').naturalWidth")) > 0, 'the logo loads');
  assert.is(await page.locator('a[href="https://help.example.com/sign-in"]').count(), 1, 'the support link');
}

/** The theme's stylesheet, not the default one, is in use in `scheme`. */
async function themeInUse(page: Page, scheme: Scheme): Promise<void> {
  assert.is(await computed(page, 'body', 'backgroundColor'), THEME.background[scheme]);
}

/** The default theme's texts in `lang`. */
function messagesOf(lang: string): Record<string, string> {
  const file = new URL(`../../http/oauth/theme/messages/${lang}.json`, import.meta.url);
  return JSON.parse(readFileSync(file, 'utf8')) as Record<string, string>;
}

/** A page in `lang`: `<html lang>` and its texts from that language's messages file. */
async function language(page: Page, lang: string): Promise<void> {
  const messages = messagesOf(lang);
  assert.is(await page.getAttribute('html', 'lang'), lang);
  assert.is((await page.locator('h1').innerText()).trim(), messages['signIn.title']);
  assert.is((await page.locator('button[type=submit]').innerText()).trim(), messages['signIn.submit']);
  assert.is.not(messages['signIn.submit'], ENGLISH['signIn.submit'], 'translated');
}

interface PageCase {
  /** The screenshots' name. */
  readonly name: string;
  /** Its screenshots at both widths in the light scheme go to docs/images/ as `<doc>-<width>.png`. */
  readonly doc?: string;
  /** The server it is served by: the suite's own when unset. */
  readonly setup?: () => Promise<LibrarySetup>;
  /** The browser's language (its Accept-Language). */
  readonly locale?: string;
  /** The product name the page shows (`troupe`, the default). */
  readonly product?: string;
  /** Brings `page` to the page under test and checks what it must say. */
  show(page: Page, context: BrowserContext): Promise<void>;
  /** Checks what depends on the colour scheme, once `page` is shown in `scheme`. */
  inScheme?(page: Page, scheme: Scheme): Promise<void>;
}

/** The default English texts, for what the pages must say. */
const ENGLISH = messagesOf('en');

/** The error page of `reason`: its heading in plain words, the OAuth error code in small print. */
async function errorPage(page: Page, reason: string, code: string): Promise<void> {
  assert.is((await page.locator('h1').innerText()).trim(), ENGLISH[`error.${reason}.heading`]);
  assert.is(await page.locator('code').filter({ hasText: code }).count(), 1, `${code} in a <code>`);
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
    name: 'consent',
    doc: 'consent',
    async show(page) {
      await page.goto((await authorizationUrl(ctx.setup)).url.href);
      await submitSignIn(page, USERS.john.username, USERS.john.password);
      assert.is((await page.locator('h1').innerText()).trim(), ENGLISH['consent.title']);
      assert.ok((await page.locator('main').innerText()).includes(CLIENT_NAME), 'the application named');
      const scopes = await page.locator('main li').allInnerTexts();
      assert.equal(scopes, [ENGLISH['scope.read'], ENGLISH['scope.write']], 'each scope described');
      assert.ok(await page.isVisible(decisionButton('allow')));
      assert.ok(await page.isVisible(decisionButton('deny')));
    },
  },
  {
    name: 'error-unknown-client',
    doc: 'error',
    async show(page) {
      await page.goto(authorizeAt('response_type=code&client_id=no-such-client'));
      await errorPage(page, 'unknown_client', 'invalid_client');
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
      await errorPage(page, 'redirect_uri', 'invalid_request');
    },
  },
  {
    name: 'error-expired',
    async show(page, context) {
      await page.goto((await authorizationUrl(ctx.setup)).url.href);
      await context.clearCookies();
      await submitSignIn(page, USERS.john.username, USERS.john.password);
      await errorPage(page, 'expired', 'invalid_request');
    },
  },
  {
    name: 'error-request',
    async show(page) {
      await page.goto(authorizeAt(`response_type=code&client_id=${WEB.id}&client_id=${WEB.id}`));
      await errorPage(page, 'request', 'invalid_request');
    },
  },
  {
    name: 'sign-in-themed',
    setup: themedSetup,
    product: THEME.product,
    async show(page) {
      await page.goto((await authorizationUrl(await themedSetup())).url.href);
      await themedPage(page);
      const button = page.locator('button[type=submit]');
      assert.is((await button.innerText()).trim(), THEME.submit, "the theme's messages");
      assert.is(await computed(page, 'button[type=submit]', 'backgroundColor'), THEME.primaryRgb);
    },
    inScheme: themeInUse,
  },
  {
    name: 'error-themed',
    setup: themedSetup,
    product: THEME.product,
    async show(page) {
      await page.goto(`${(await themedSetup()).server.url}/oauth/authorize?response_type=code&client_id=nobody`);
      await themedPage(page);
    },
    inScheme: themeInUse,
  },
  {
    name: 'sign-in-fr',
    locale: 'fr-FR',
    async show(page) {
      await page.goto((await authorizationUrl(ctx.setup)).url.href);
      await language(page, 'fr');
    },
  },
  {
    name: 'sign-in-de',
    // ui_locales wins over the browser's French.
    locale: 'fr-FR',
    async show(page) {
      await page.goto((await authorizationUrl(ctx.setup, 'read write', { ui_locales: 'de' })).url.href);
      await language(page, 'de');
    },
  },
  {
    name: 'consent-fr',
    locale: 'fr-FR',
    async show(page) {
      const french = messagesOf('fr');
      await page.goto((await authorizationUrl(ctx.setup)).url.href);
      await submitSignIn(page, USERS.john.username, USERS.john.password);
      assert.is(await page.getAttribute('html', 'lang'), 'fr');
      assert.is((await page.locator('h1').innerText()).trim(), french['consent.title']);
      const scopes = await page.locator('main li').allInnerTexts();
      assert.equal(scopes, [french['scope.read'], french['scope.write']], 'each scope described in French');
    },
  },
];

t('the accessibility check sees a violation where there is one (an unlabelled field)', async () => {
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
});

/** Every page has one heading in one `<main>`, shows the product's name and nothing from elsewhere. */
async function checkPage(watched: Watched, product: string, what: string): Promise<void> {
  assert.is(await watched.page.locator('main').count(), 1, `${what}: one <main>`);
  assert.is(await watched.page.locator('main h1').count(), 1, `${what}: one <h1>`);
  assert.ok((await watched.page.locator('main').innerText()).includes(product), `${what}: ${product} shown`);
  assert.equal(watched.stray, [], `${what}: nothing requested from elsewhere, nothing failed`);
  assert.equal(watched.errors, [], `${what}: no console error (nothing refused by the CSP)`);
}

for (const c of PAGES)
  t(`${c.name}: no WCAG 2.2 A/AA violation, light and dark, at ${WIDTHS.join(' and ')} px; screenshots`, async () => {
    const setup = c.setup === undefined ? ctx.setup : await c.setup();
    const watched = await open('light', { setup, ...(c.locale === undefined ? {} : { locale: c.locale }) });
    await c.show(watched.page, watched.context);
    for (const scheme of ['light', 'dark'] as const) {
      // The same page in the other scheme: prefers-color-scheme changes, the page is not reloaded.
      await watched.page.emulateMedia({ colorScheme: scheme });
      await c.inScheme?.(watched.page, scheme);
      for (const width of WIDTHS) {
        const what = `${c.name} (${scheme}, ${width} px)`;
        await watched.page.setViewportSize({ width, height: 800 });
        await checkPage(watched, c.product ?? 'troupe', what);
        await assertAccessible(watched.page, what);
        const name = `${c.name}-${width}${scheme === 'dark' ? '-dark' : ''}`;
        await shots.take(watched.page, name, scheme === 'light' && c.doc ? `${c.doc}-${width}` : undefined);
      }
    }
    await watched.context.close();
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

type Decision = 'allow' | 'deny';
const decisionButton = (decision: Decision): string => `button[name=decision][value=${decision}]`;

/**
 * With the keyboard alone, from the application's link: to the sign-in page, through it as `user`
 * and, with a `decision`, through the consent page; answers where the browser lands.
 */
async function byKeyboard(
  page: Page,
  setup: LibrarySetup,
  url: URL,
  decision?: Decision,
  user: { username: string; password: string } = USERS.john,
): Promise<URL> {
  await page.goto(setup.target.home(url.href));
  await tabTo(page, '#start');
  await Promise.all([page.waitForURL(`${setup.server.url}/oauth/authorize?**`), page.keyboard.press('Enter')]);
  await tabTo(page, '#username');
  await page.keyboard.type(user.username);
  assert.is(await tabTo(page, '#password', 1), 1, 'the password follows the username');
  await page.keyboard.type(user.password);
  const landing = page.waitForURL(`${setup.target.callback}?**`, { timeout: 20_000 });
  await page.keyboard.press('Enter');
  if (decision !== undefined) {
    await page.locator(decisionButton(decision)).waitFor();
    await tabTo(page, decisionButton(decision));
    await page.keyboard.press('Enter');
  }
  await landing;
  return new URL(page.url());
}

/**
 * Redeems the code `landed` carries (PKCE, state and iss checked by the library); answers the
 * token's scope, and checks that the token opens /app/user when it is john.doe's.
 */
async function redeem(
  setup: LibrarySetup,
  landed: URL,
  start: { verifier: string; state: string },
  user: string = USERS.john.username,
): Promise<string | undefined> {
  const tokens = await client.authorizationCodeGrant(setup.web, landed, {
    pkceCodeVerifier: start.verifier,
    expectedState: start.state,
  });
  if (user === USERS.john.username) {
    const res = await fetch(`${setup.server.url}/app/user`, { headers: bearer(tokens.access_token) });
    assert.is(res.status, 200);
  }
  return tokens.scope;
}

// Deny first: john.doe has allowed nothing yet, so the consent page is shown (Allow, below, is remembered).
t('keyboard alone: sign in, Deny on the consent page → access_denied with state and iss', async () => {
  const watched = await open('light');
  const start = await authorizationUrl(ctx.setup);
  const landed = await byKeyboard(watched.page, ctx.setup, start.url, 'deny');
  assert.is(landed.searchParams.get('error'), 'access_denied');
  assert.is(landed.searchParams.get('state'), start.state);
  assert.is(landed.searchParams.get('iss'), ctx.setup.server.config.security.jwt.issuer);
  assert.is(landed.searchParams.get('code'), null);
  await watched.context.close();
});

t('keyboard alone: from the application link, sign in, Allow; the code redeems', async () => {
  const watched = await open('light');
  const start = await authorizationUrl(ctx.setup);
  await redeem(ctx.setup, await byKeyboard(watched.page, ctx.setup, start.url, 'allow'), start);
  await watched.context.close();
});

t('signed in once: a consent is not asked again; asking for more asks again, the new scope marked', async () => {
  const watched = await open('light');
  const { page } = watched;
  const landing = () => page.waitForURL(`${ctx.setup.target.callback}?**`, { timeout: 20_000 });
  // The sign-in session: only the first authorization shows the sign-in form.
  const authorize = async (scope: string) => {
    const start = await authorizationUrl(ctx.setup, scope);
    await page.goto(start.url.href);
    return start;
  };
  const first = await authorize('read');
  await submitSignIn(page, USERS.admin.username, USERS.admin.password);
  assert.equal(await page.locator('main li').allInnerTexts(), [ENGLISH['scope.read']]);
  await Promise.all([landing(), page.click(decisionButton('allow'))]);
  assert.is(await redeem(ctx.setup, new URL(page.url()), first, USERS.admin.username), 'read');
  const again = await authorize('read');
  await landing();
  assert.is(await redeem(ctx.setup, new URL(page.url()), again, USERS.admin.username), 'read', 'not asked again');
  const more = await authorize('read write');
  const items = page.locator('main li');
  assert.is(await items.count(), 2);
  assert.is(await items.filter({ hasText: ENGLISH['scope.write'] }).locator('.badge').count(), 1, 'write is new');
  assert.is(await items.filter({ hasText: ENGLISH['scope.read'] }).locator('.badge').count(), 0, 'read is not');
  await Promise.all([landing(), page.click(decisionButton('allow'))]);
  assert.is(await redeem(ctx.setup, new URL(page.url()), more, USERS.admin.username), 'read write');
  await watched.context.close();
});

t('keyboard alone: a first-party client ("consent": "implicit") goes back with a code, no consent asked', async () => {
  const setup = await themedSetup();
  const watched = await open('light', { setup });
  const start = await authorizationUrl(setup);
  await redeem(setup, await byKeyboard(watched.page, setup, start.url), start);
  await watched.context.close();
});

if (CHROMIUM_PATH === undefined && !BROWSER_REQUIRED) skipSuite(NAME, CHROMIUM_MISSING);
else t.run();

/**
 * The sign-in pages as a real server serves them: the stylesheet and logo routes, the error pages
 * in plain words, the language of the browser, the branding keys, and the start refused for a bad
 * colour or a broken theme file.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ConfigError } from '../../src/config.ts';
import { authorizeUrl, openForm, pkce, submit } from '../helpers/authorize.ts';
import { CLIENTS, clientsFile, WEB } from '../helpers/clients.ts';
import { startTestServer, tempDir, type TestServer } from '../helpers/server.ts';
import { USERS } from '../helpers/tokens.ts';

const LOGO = fileURLToPath(new URL('../fixtures/logo.svg', import.meta.url));
const REQUEST = {
  response_type: 'code',
  client_id: WEB.id,
  redirect_uri: WEB.redirect,
  scope: 'read',
  state: 'state-1',
  code_challenge: pkce().challenge,
  code_challenge_method: 'S256',
};
const PAGE_CSP = "default-src 'none'; style-src 'self'; img-src 'self'; frame-ancestors 'none'; base-uri 'none'";

const ctx = {} as { plain: TestServer; branded: TestServer; theme: string };
const t = suite('sign-in pages over HTTP', ctx);

t.before(async () => {
  ctx.theme = tempDir('troupe-theme-');
  mkdirSync(join(ctx.theme, 'messages'));
  writeFileSync(join(ctx.theme, 'messages', 'en.json'), JSON.stringify({ 'signIn.submit': 'Log in to Acme' }));
  ctx.plain = await startTestServer({ 'security.clients-file': clientsFile(CLIENTS) });
  ctx.branded = await startTestServer({
    'security.clients-file': clientsFile(CLIENTS),
    'security.sign-in.product-name': 'Acme Shop',
    'security.sign-in.logo': LOGO,
    'security.sign-in.primary-color': '#FD0',
    'security.sign-in.support-url': 'https://help.acme.example/sign-in',
    'security.sign-in.theme': ctx.theme,
  });
});
t.after(async () => {
  await ctx.plain?.close();
  await ctx.branded?.close();
  rmSync(ctx.theme, { recursive: true, force: true });
});

/** Every address the page links to or loads. */
const linked = (html: string): string[] => [...html.matchAll(/(?:src|href)="([^"]*)"/g)].map((m) => m[1] ?? '');

t('GET /oauth/sign-in/style.css › 200 text/css in the default colours, cacheable', async () => {
  const res = await fetch(`${ctx.plain.url}/oauth/sign-in/style.css`);
  assert.is(res.status, 200);
  assert.is(res.headers.get('content-type'), 'text/css; charset=utf-8');
  assert.match(res.headers.get('cache-control') ?? '', /^public, max-age=\d+$/);
  assert.is(res.headers.get('x-content-type-options'), 'nosniff');
  const css = await res.text();
  assert.match(css, /^:root \{\n {2}--primary: #1f5fd1;\n {2}--on-primary: #ffffff;\n\}/);
  assert.match(css, /@media \(prefers-color-scheme: dark\)/);
  assert.match(css, /:focus-visible/);
  assert.not.match(css, /url\(|@import/, 'nothing loaded from elsewhere');
});

t('GET /oauth/sign-in/style.css › the configured colour, with text chosen for contrast', async () => {
  const css = await (await fetch(`${ctx.branded.url}/oauth/sign-in/style.css`)).text();
  assert.match(css, /--primary: #ffdd00;\n {2}--on-primary: #111111;/);
});

t('GET /oauth/sign-in/logo › 404 when none is configured', async () => {
  const res = await fetch(`${ctx.plain.url}/oauth/sign-in/logo`);
  assert.is(res.status, 404);
  assert.match(res.headers.get('content-type') ?? '', /^application\/problem\+json/);
});

t('GET /oauth/sign-in/logo › the configured SVG, under a CSP of its own, nosniff, cacheable', async () => {
  const res = await fetch(`${ctx.branded.url}/oauth/sign-in/logo`);
  assert.is(res.status, 200);
  assert.is(res.headers.get('content-type'), 'image/svg+xml');
  assert.is(res.headers.get('content-security-policy'), "default-src 'none'; style-src 'unsafe-inline'");
  assert.is(res.headers.get('x-content-type-options'), 'nosniff');
  assert.match(res.headers.get('cache-control') ?? '', /^public, max-age=\d+$/);
  assert.match(await res.text(), /^<svg /);
});

t('the sign-in page › the CSP allows this server’s stylesheet and images alone', async () => {
  const form = await openForm(authorizeUrl(ctx.plain.url, REQUEST));
  assert.is(form.status, 200);
  assert.is(form.headers.get('content-security-policy'), PAGE_CSP);
  assert.equal(linked(form.html), ['/oauth/sign-in/style.css']);
  assert.match(form.html, /<p class="product">troupe<\/p>/);
  assert.match(form.html, /<title>Sign in · troupe<\/title>/);
});

t('the sign-in page › product name, logo, support link and theme messages as configured', async () => {
  const form = await openForm(authorizeUrl(ctx.branded.url, REQUEST));
  assert.is(form.status, 200);
  assert.match(form.html, /<title>Sign in · Acme Shop<\/title>/);
  assert.match(form.html, /<p class="product">Acme Shop<\/p>/);
  assert.match(form.html, />Log in to Acme<\/button>/);
  assert.equal(linked(form.html), [
    '/oauth/sign-in/style.css',
    '/oauth/sign-in/logo',
    'https://help.acme.example/sign-in',
  ]);
  const error = await openForm(authorizeUrl(ctx.branded.url, { ...REQUEST, client_id: 'nobody' }));
  assert.match(error.html, /<a href="https:\/\/help\.acme\.example\/sign-in">Need help\? Contact support<\/a>/);
});

t('the sign-in page › Accept-Language, overridden by ui_locales; <html lang> follows', async () => {
  const de = await openForm(authorizeUrl(ctx.plain.url, REQUEST), { 'Accept-Language': 'de-CH, en;q=0.5' });
  assert.match(de.html, /<html lang="de">/);
  assert.match(de.html, /<h1>Anmelden<\/h1>/);
  const fr = await openForm(authorizeUrl(ctx.plain.url, { ...REQUEST, ui_locales: 'es fr' }), {
    'Accept-Language': 'de',
  });
  assert.is(fr.status, 200);
  assert.match(fr.html, /<html lang="fr">/);
  assert.match(fr.html, /<h1>Connexion<\/h1>/);
  const en = await openForm(authorizeUrl(ctx.plain.url, REQUEST), { 'Accept-Language': 'ja, es;q=0.8' });
  assert.match(en.html, /<html lang="en">/);
});

t('POST › wrong password: the problem beside the fields, in the browser’s language, the username kept', async () => {
  const form = await openForm(authorizeUrl(ctx.plain.url, REQUEST), { 'Accept-Language': 'fr' });
  const res = await submit(
    ctx.plain.url,
    form,
    { username: USERS.john.username, password: 'wrong-but-secret' },
    () => {},
    form.cookie,
    {
      'Accept-Language': 'fr',
    },
  );
  assert.is(res.status, 400);
  const html = await res.text();
  assert.match(html, /role="alert">\s*<p>Nom d’utilisateur ou mot de passe incorrect\.<\/p>/);
  assert.match(
    html,
    new RegExp(`id="username"[^>]* value="${USERS.john.username}" aria-invalid="true" aria-describedby="problem"`),
  );
});

t('POST › ui_locales is carried by the form: the page after a wrong password keeps its language', async () => {
  const form = await openForm(authorizeUrl(ctx.plain.url, { ...REQUEST, ui_locales: 'de' }), {
    'Accept-Language': 'fr',
  });
  assert.is(form.fields.get('ui_locales'), 'de');
  const res = await submit(ctx.plain.url, form, { username: USERS.john.username, password: 'wrong-but-secret' });
  assert.is(res.status, 400);
  const html = await res.text();
  assert.match(html, /<html lang="de">/);
  assert.match(html, /Benutzername oder Passwort ist falsch\./);
});

t('error page › unknown client: plain words, the code in small print, no redirect', async () => {
  const page = await openForm(authorizeUrl(ctx.plain.url, { ...REQUEST, client_id: 'nobody' }));
  assert.is(page.status, 400);
  assert.is(page.headers.get('location'), null);
  assert.is(page.headers.get('content-security-policy'), PAGE_CSP);
  assert.match(page.html, /<h1>Unknown application<\/h1>/);
  assert.match(page.html, /This application is not known here\. Contact its maker\./);
  assert.match(page.html, /<small><code>invalid_client<\/code>: Unknown client<\/small>/);
  assert.equal(linked(page.html), ['/oauth/sign-in/style.css']);
});

t('error page › unregistered redirect_uri: plain words, never a link to the address', async () => {
  const redirect = 'https://evil.example/steal';
  const page = await openForm(authorizeUrl(ctx.plain.url, { ...REQUEST, redirect_uri: redirect }));
  assert.is(page.status, 400);
  assert.is(page.headers.get('location'), null);
  assert.match(page.html, /The application sent you back to an address it did not register\./);
  assert.match(page.html, /<small><code>invalid_request<\/code>: [^<]*redirect_uri is not registered/);
  assert.equal(linked(page.html), ['/oauth/sign-in/style.css']);
});

t('error page › an expired form (no CSRF cookie): plain words, start again', async () => {
  const form = await openForm(authorizeUrl(ctx.plain.url, REQUEST), { 'Accept-Language': 'de' });
  const res = await submit(ctx.plain.url, form, USERS.john, () => {}, '', { 'Accept-Language': 'de' });
  assert.is(res.status, 400);
  const html = await res.text();
  assert.match(html, /<html lang="de">/);
  assert.match(html, /Diese Anmeldeseite ist abgelaufen\./);
  assert.match(html, /<code>invalid_request<\/code>/);
});

/** Starting with `properties` fails with a ConfigError whose message matches every pattern. */
async function refusedStart(properties: Record<string, string>, ...patterns: RegExp[]): Promise<void> {
  const dataDir = tempDir();
  try {
    const server = await startTestServer(properties, dataDir);
    await server.close();
    assert.unreachable(`started with ${JSON.stringify(properties)}`);
  } catch (error) {
    assert.instance(error, ConfigError);
    for (const pattern of patterns) assert.match((error as Error).message, pattern);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

t('the start is refused › a primary colour that is no hex colour', async () => {
  for (const color of ['blue', '#12345', 'fd0', '#ggg'])
    await refusedStart(
      { 'security.sign-in.primary-color': color },
      /security\.sign-in\.primary-color: must be a hex colour/,
    );
});

t(
  'the start is refused › a theme template that does not parse, or messages that are no object of strings',
  async () => {
    const theme = tempDir('troupe-theme-');
    try {
      writeFileSync(join(theme, 'sign-in.html'), '<h1>{{#t.signIn}}{{title}}</h1>');
      await refusedStart(
        { 'security.sign-in.theme': theme },
        /security\.sign-in\.theme/,
        new RegExp(`${join(theme, 'sign-in.html')} is not a valid mustache template`),
      );
      rmSync(join(theme, 'sign-in.html'));
      mkdirSync(join(theme, 'messages'));
      writeFileSync(join(theme, 'messages', 'de.json'), '{"signIn.title": ["Anmelden"]}');
      await refusedStart(
        { 'security.sign-in.theme': theme },
        new RegExp(`${join(theme, 'messages', 'de.json')} must be a JSON object of strings`),
      );
    } finally {
      rmSync(theme, { recursive: true, force: true });
    }
  },
);

t('the start is refused › a logo of another type or missing, a support link that is no http(s) URL', async () => {
  await refusedStart({ 'security.sign-in.logo': '/tmp/logo.gif' }, /security\.sign-in\.logo: must be a \.png/);
  await refusedStart(
    { 'security.sign-in.logo': '/nonexistent/logo.png' },
    /security\.sign-in\.logo: cannot read \/nonexistent\/logo\.png/,
  );
  await refusedStart(
    { 'security.sign-in.support-url': 'javascript:alert(1)' },
    /security\.sign-in\.support-url: must be an http or https URL/,
  );
  await refusedStart({ 'security.sign-in.theme': '/nonexistent/theme' }, /\/nonexistent\/theme is not a folder/);
});

t('the start is refused › with several workers, once, by the primary, in one line', () => {
  const theme = tempDir('troupe-theme-');
  const dataDir = tempDir();
  try {
    writeFileSync(join(theme, 'error.html'), '{{/nothing}}');
    const run = spawnSync(process.execPath, ['src/main.ts'], {
      encoding: 'utf8',
      timeout: 20_000,
      env: {
        ...process.env,
        CONFIG_FILE: '/dev/null',
        DATA_DIR: dataDir,
        SERVER_PORT: '0',
        SERVER_WORKERS: '2',
        SECURITY_SIGN_IN_THEME: theme,
      },
    });
    assert.is(run.status, 1);
    assert.equal(run.stderr.trim().split('\n'), [
      `Invalid configuration: security.sign-in.theme: ${join(theme, 'error.html')} is not a valid mustache template (Unopened section "nothing" at 0)`,
    ]);
  } finally {
    rmSync(theme, { recursive: true, force: true });
    rmSync(dataDir, { recursive: true, force: true });
  }
});

t.run();

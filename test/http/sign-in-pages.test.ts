/**
 * The themed pages of the authorization endpoint, rendered without a server: escaping, language,
 * theme overrides, scope descriptions, problems next to the fields, error pages in plain words,
 * the colour arithmetic behind the primary button, and the translations' completeness.
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { ConsentView, PageRequest, Pages, SignInView } from '../../http/oauth/page-views.ts';
import { contrast, NEAR_BLACK, textOn, WHITE } from '../../http/oauth/pages/contrast.ts';
import { byQuality, negotiate } from '../../http/oauth/pages/language.ts';
import { colorProperties, loadSignInSite } from '../../http/oauth/pages/sign-in-site.ts';
import { DEFAULT_THEME, loadTheme } from '../../http/oauth/pages/theme.ts';
import { themedPages } from '../../http/oauth/pages/themed-pages.ts';
import { escapeHtml } from '../../http/oauth/pages/html.ts';
import { ConfigError } from '../../src/config.ts';
import { OPENID_SCOPES } from '../../src/security/claims.ts';
import { tempDir } from '../helpers/server.ts';

const t = suite('sign-in pages: rendering');

const EN: PageRequest = { acceptLanguage: '' };
const pages = (folder?: string, supportUrl?: string): Pages =>
  themedPages(loadTheme(folder), { productName: 'Acme', logo: false, supportUrl });
const signInView = (over: Partial<SignInView> = {}): SignInView => ({
  clientName: 'Shop',
  hidden: new Map([['client_id', 'shop']]),
  ...over,
});
const consentView = (over: Partial<ConsentView> = {}): ConsentView => ({
  clientName: 'Shop',
  clientId: 'shop',
  username: 'jane',
  scopes: ['read', 'write'],
  granted: [],
  hidden: new Map([['client_id', 'shop']]),
  ...over,
});

/** A theme folder with `files` (path → content). */
function themeFolder(files: Record<string, string>): string {
  const dir = tempDir('troupe-theme-');
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(join(dir, path, '..'), { recursive: true });
    writeFileSync(join(dir, path), content);
  }
  return dir;
}

const messagesOf = (language: string): Record<string, string> =>
  JSON.parse(readFileSync(join(DEFAULT_THEME, 'messages', `${language}.json`), 'utf8')) as Record<string, string>;

t('every value is escaped: client, username, hidden fields, problem, scopes, error, product, support link', () => {
  const evil = `"><script>x</script>&'`;
  const escaped = '&quot;&gt;&lt;script&gt;x&lt;/script&gt;&amp;&#39;';
  const p = themedPages(loadTheme(), {
    productName: evil,
    logo: false,
    supportUrl: `https://help.example/?a=1&b=${evil}`,
  });
  const signIn = p.signIn(
    signInView({
      clientName: evil,
      username: evil,
      hidden: new Map([[evil, evil]]),
      problem: { kind: 'invalid', message: evil },
    }),
    EN,
  );
  const consent = p.consent(consentView({ clientName: evil, username: evil, scopes: [evil] }), EN);
  const error = p.error({ reason: 'request', error: evil, description: evil }, EN);
  for (const html of [signIn, consent, error]) {
    assert.not.match(html, /<script>/);
    assert.ok(html.includes(escaped));
  }
  assert.ok(signIn.includes(`<input type="hidden" name="${escaped}" value="${escaped}">`));
  assert.ok(signIn.includes(`value="${escaped}"`), 'the username kept, escaped');
  assert.ok(signIn.includes(`href="https://help.example/?a=1&amp;b=${escaped}"`));
});

t('a hidden field keeps its value as written (a URL is not turned into entities)', () => {
  const html = pages().signIn(signInView({ hidden: new Map([['redirect_uri', 'https://app.example/cb?x=1']]) }), EN);
  assert.ok(html.includes('<input type="hidden" name="redirect_uri" value="https://app.example/cb?x=1">'));
});

t('Accept-Language: by quality, a region falls back to its language, q=0 and unknown ones skipped', () => {
  assert.equal(byQuality('fr-CH, fr;q=0.9, en;q=0.8, de;q=0.95, *;q=0.5, es;q=0'), ['fr-CH', 'de', 'fr', 'en', '*']);
  const languages = ['en', 'fr', 'de'];
  assert.is(negotiate(languages, 'es, de;q=0.5, fr;q=0.7'), 'fr');
  assert.is(negotiate(languages, 'de-AT'), 'de');
  assert.is(negotiate(languages, 'es, it'), 'en');
  assert.is(negotiate(languages, ''), 'en');
  assert.is(negotiate(languages, 'fr;q=0, de;q=0.1'), 'de');
});

t('ui_locales wins over Accept-Language: its first language with messages', () => {
  const languages = ['en', 'fr', 'de'];
  assert.is(negotiate(languages, 'fr', 'es de'), 'de');
  assert.is(negotiate(languages, 'fr', 'es it'), 'fr', 'none known: Accept-Language decides');
  const html = pages().signIn(signInView(), { acceptLanguage: 'de', uiLocales: 'fr-CA' });
  assert.match(html, /<html lang="fr">/);
  assert.match(html, /Connexion/);
});

t('<html lang> is the chosen language, and the page reads in it', () => {
  const de = pages().signIn(signInView(), { acceptLanguage: 'de-DE,de;q=0.9' });
  assert.match(de, /<html lang="de">/);
  assert.match(de, /<label for="password">Passwort<\/label>/);
  assert.match(pages().signIn(signInView(), EN), /<html lang="en">/);
});

t('a theme folder replaces a template, the stylesheet and single messages; the rest stays the default', () => {
  const dir = themeFolder({
    'error.html': '<!doctype html><h1 class="mine">{{heading}}</h1><code>{{error}}</code>',
    'style.css': 'body{color:rebeccapurple}',
    'messages/en.json': JSON.stringify({ 'signIn.submit': 'Log in', 'scope.read': 'See your orders' }),
    'messages/fr.json': JSON.stringify({ 'signIn.submit': 'Entrer' }),
  });
  const p = pages(dir);
  assert.match(p.error({ reason: 'expired', error: 'invalid_request', description: 'x' }, EN), /class="mine"/);
  assert.match(p.signIn(signInView(), EN), />Log in<\/button>/);
  assert.match(p.signIn(signInView(), EN), /<label for="username">Username<\/label>/, 'the rest is the default');
  assert.match(p.signIn(signInView(), { acceptLanguage: 'fr' }), />Entrer<\/button>/);
  assert.match(p.signIn(signInView(), { acceptLanguage: 'fr' }), /Mot de passe/);
  assert.match(p.consent(consentView(), EN), /See your orders/);
  const site = loadSignInSite({ productName: 'Acme', primaryColor: '#000', theme: dir });
  assert.match(site.stylesheet, /body\{color:rebeccapurple\}$/);
  assert.match(site.stylesheet, /--primary: #000000;/);
});

t('a theme folder replaces a shared partial on every page; a template replaced whole keeps its own head', () => {
  const errorView = { reason: 'expired', error: 'invalid_request', description: 'x' } as const;
  const branded = pages(themeFolder({ 'brand.html': '<header class="mine">{{product}}</header>' }));
  for (const html of [
    branded.signIn(signInView(), EN),
    branded.consent(consentView(), EN),
    branded.error(errorView, EN),
  ]) {
    assert.match(html, /<header class="mine">Acme<\/header>/);
    assert.not.match(html, /class="brand"/);
    assert.match(html, /<title>[^<]+<\/title>/, 'the head is still the default');
  }
  const whole = '<!doctype html><html lang="{{lang}}"><head><title>{{title}}</title></head><h1>{{heading}}</h1></html>';
  const own = pages(themeFolder({ 'error.html': whole })).error(errorView, EN);
  assert.not.match(own, /class="brand"|stylesheet/);
  assert.match(own, /^<!doctype html><html lang="en"><head><title>[^<]+<\/title><\/head><h1>[^<]+<\/h1><\/html>$/);
  const dir = themeFolder({ 'head.html': '<head>{{#lang}}' });
  assert.throws(
    () => loadTheme(dir),
    (error: unknown) =>
      error instanceof ConfigError &&
      error.message.includes(join(dir, 'head.html')) &&
      /not a valid mustache template/.test(error.message),
  );
});

t("a theme may add a language: its missing keys are the theme's and the default's English", () => {
  const dir = themeFolder({
    'messages/en.json': JSON.stringify({ 'scope.orders': 'See your orders' }),
    'messages/es.json': JSON.stringify({ 'signIn.title': 'Iniciar sesión' }),
  });
  const html = pages(dir).signIn(signInView(), { acceptLanguage: 'es' });
  assert.match(html, /<html lang="es">/);
  assert.match(html, /<h1>Iniciar sesión<\/h1>/);
  assert.match(html, /<label for="username">Username<\/label>/);
  assert.match(pages(dir).consent(consentView({ scopes: ['orders'] }), { acceptLanguage: 'es' }), /See your orders/);
});

t('consent: each scope with its description; a scope without one shows its name', () => {
  const html = pages().consent(consentView({ scopes: ['read', 'billing:export', '{product}'] }), EN);
  assert.match(html, /<span class="scope-text">Read your data<\/span>/);
  assert.match(html, /<span class="scope-text">billing:export<\/span>/);
  assert.match(html, /<span class="scope-text">\{product\}<\/span>/, 'a name is shown as it is');
  assert.match(html, /<p class="account">Signed in as jane<\/p>/);
  assert.match(html, /Shop asks to access your account/);
  assert.match(html, /<button type="submit" class="primary" name="decision" value="allow">Allow<\/button>/);
  assert.match(html, /<button type="submit" class="secondary" name="decision" value="deny">Deny<\/button>/);
  assert.match(html, /<form method="post" action="\/oauth\/authorize\/consent">/);
});

t('consent: the OpenID scopes in words, in every language of the default theme', () => {
  const scopes = [...OPENID_SCOPES];
  const words = {
    en: ['Recognise your account when you sign in', 'See your name and username', 'See your email address'],
    de: [
      'Ihr Konto bei der Anmeldung wiedererkennen',
      'Ihren Namen und Benutzernamen sehen',
      'Ihre E-Mail-Adresse sehen',
    ],
    fr: [
      'Reconnaître votre compte lors de la connexion',
      'Voir votre nom et votre nom d’utilisateur',
      'Voir votre adresse e-mail',
    ],
  };
  for (const language of readdirSync(join(DEFAULT_THEME, 'messages')).map((f) => f.replace(/\.json$/, ''))) {
    const messages = messagesOf(language);
    for (const scope of scopes) assert.type(messages[`scope.${scope}`], 'string', `${language}: scope.${scope}`);
    const html = pages().consent(consentView({ scopes }), { acceptLanguage: language });
    const shown = [...html.matchAll(/<span class="scope-text">([^<]*)<\/span>/g)].map((m) => m[1]);
    assert.equal(
      shown,
      scopes.map((scope) => escapeHtml(messages[`scope.${scope}`] ?? '')),
      language,
    );
    if (language in words) assert.equal(shown, words[language as keyof typeof words].map(escapeHtml), language);
  }
});

t('consent: new scopes are marked only when some were granted before', () => {
  const first = pages().consent(consentView(), EN);
  assert.not.match(first, /class="badge"/);
  const more = pages().consent(consentView({ granted: ['read'] }), EN);
  assert.equal([...more.matchAll(/class="badge">New</g)].length, 1);
  assert.match(more, /Change your data<\/span> <span class="badge">New<\/span>/);
  assert.match(more, /asked for the first time/);
});

t('sign-in problems: next to the fields, in an alert region, the username kept', () => {
  const wrong = pages().signIn(signInView({ username: 'jane', problem: { kind: 'credentials' } }), EN);
  assert.match(wrong, /<div id="problem" class="problem" role="alert">\s*<p>Wrong username or password\.<\/p>/);
  assert.equal([...wrong.matchAll(/aria-invalid="true" aria-describedby="problem"/g)].length, 2);
  assert.match(wrong, /id="username"[^>]* value="jane"/);
  const throttled = pages().signIn(signInView({ problem: { kind: 'throttled', retryAfter: 42, inFlight: false } }), EN);
  assert.match(throttled, /Too many failed sign-ins; try again in 42 seconds/);
  assert.match(throttled, /role="alert"/);
  assert.not.match(throttled, /aria-invalid/, 'nothing typed was wrong');
  const busy = pages().signIn(signInView({ problem: { kind: 'throttled', retryAfter: 2, inFlight: true } }), EN);
  assert.match(busy, /Too many sign-ins are being checked at once; try again in 2 seconds/);
  assert.not.match(busy, /failed/, 'no failure was counted');
  assert.not.match(busy, /aria-invalid/);
  const invalid = pages().signIn(signInView({ problem: { kind: 'invalid', message: 'Too long' } }), EN);
  assert.match(invalid, /What you typed was not accepted: Too long/);
  assert.match(invalid, /aria-invalid="true"/);
  const none = pages().signIn(signInView(), EN);
  assert.not.match(none, /role="alert"|aria-invalid/);
});

t('error pages: plain words by reason, the OAuth code in small print, no link but support', () => {
  const p = pages();
  const words = {
    unknown_client: /This application is not known here\. Contact its maker\./,
    redirect_uri: /The application sent you back to an address it did not register\./,
    expired: /This sign-in page has expired\. Go back to the application and start again\./,
    request: /could not be handled/,
  } as const;
  for (const [reason, pattern] of Object.entries(words)) {
    const html = p.error(
      { reason: reason as keyof typeof words, error: 'invalid_request', description: 'For the developer' },
      EN,
    );
    assert.match(html, pattern, reason);
    assert.match(html, /<small><code>invalid_request<\/code>: For the developer<\/small>/, reason);
    assert.equal(
      [...html.matchAll(/href="([^"]*)"/g)].map((m) => m[1]),
      ['/oauth/sign-in/style.css'],
      reason,
    );
    assert.equal([...html.matchAll(/<h1>/g)].length, 1);
  }
  const helped = pages(undefined, 'https://help.example/').error(
    { reason: 'unknown_client', error: 'invalid_client', description: 'Unknown client' },
    EN,
  );
  assert.match(helped, /<a href="https:\/\/help\.example\/">Need help\? Contact support<\/a>/);
});

t('every page: one <h1>, a <main>, the product name, the stylesheet of this server; a logo only when set', () => {
  const p = pages();
  for (const html of [
    p.signIn(signInView(), EN),
    p.consent(consentView(), EN),
    p.error({ reason: 'expired', error: 'invalid_request', description: 'd' }, EN),
  ]) {
    assert.equal([...html.matchAll(/<h1>/g)].length, 1);
    assert.match(html, /<main class="card">/);
    assert.match(html, /<p class="product">Acme<\/p>/);
    assert.match(html, /<link rel="stylesheet" href="\/oauth\/sign-in\/style\.css">/);
    assert.not.match(html, /<img|<script|style=/);
  }
  const logo = themedPages(loadTheme(), { productName: 'Acme', logo: true }).signIn(signInView(), EN);
  assert.match(logo, /<img class="logo" src="\/oauth\/sign-in\/logo" alt="">/);
});

t('every text of the templates comes from the messages', () => {
  const marked = Object.fromEntries(Object.keys(messagesOf('en')).map((key) => [key, `«${key}»`]));
  const p = pages(themeFolder({ 'messages/en.json': JSON.stringify(marked) }));
  const rendered = [
    p.signIn(signInView({ problem: { kind: 'credentials' } }), EN),
    p.consent(consentView({ granted: ['read'] }), EN),
    ...(['unknown_client', 'redirect_uri', 'expired', 'request'] as const).map((reason) =>
      p.error({ reason, error: 'E', description: 'D' }, EN),
    ),
  ];
  // What a page may show besides messages: the values of the view, and punctuation between them.
  const values = ['Acme', 'E', 'D', 'read', 'write'];
  for (const html of rendered) {
    const texts = html
      .replace(/<[^>]*>/g, '\n')
      .split('\n')
      .map((s) => s.trim())
      .filter((s) => s !== '' && !s.includes('«'));
    for (const text of texts)
      assert.not.match(
        values.reduce((rest, value) => rest.replaceAll(value, ''), text),
        /\p{L}/u,
        `text not from messages: ${text}`,
      );
  }
});

t('fr and de have exactly the keys of en, with the same placeholders, none empty', () => {
  const en = messagesOf('en');
  const languages = readdirSync(join(DEFAULT_THEME, 'messages')).map((f) => f.replace(/\.json$/, ''));
  assert.equal(languages.sort(), ['de', 'en', 'fr']);
  const placeholders = (s: string) => [...s.matchAll(/\{([A-Za-z]+)\}/g)].map((m) => m[1]).sort();
  for (const language of ['fr', 'de']) {
    const other = messagesOf(language);
    assert.equal(Object.keys(other).sort(), Object.keys(en).sort(), language);
    for (const [key, text] of Object.entries(other)) {
      assert.ok(text.trim() !== '', `${language} ${key}`);
      assert.equal(placeholders(text), placeholders(en[key] ?? ''), `${language} ${key}`);
    }
  }
});

t('the text on the primary colour: white or near-black by WCAG contrast, black when neither reaches AA', () => {
  assert.is(Math.round(contrast('#fff', '#000')), 21);
  assert.is(textOn('#1f5fd1'), WHITE);
  assert.is(textOn('#ffd400'), NEAR_BLACK);
  assert.is(textOn('#fff'), NEAR_BLACK);
  assert.is(textOn('#777777'), '#000000', 'a mid grey: neither white nor #111 reaches 4.5:1');
  for (const color of ['#1f5fd1', '#ffd400', '#777777', '#e11d48', '#16a34a', '#808080'])
    assert.ok(contrast(textOn(color), color) >= 4.5, color);
  assert.is(colorProperties('#FD0'), ':root {\n  --primary: #ffdd00;\n  --on-primary: #111111;\n}\n');
});

t("the default stylesheet's colour pairs reach WCAG AA in the light and the dark scheme", () => {
  const css = readFileSync(join(DEFAULT_THEME, 'style.css'), 'utf8');
  const schemes = css.split('@media (prefers-color-scheme: dark)');
  const vars = (block: string) =>
    Object.fromEntries([...block.matchAll(/--([a-z-]+):\s*(#[0-9a-f]{6})/g)].map((m) => [m[1], m[2]]));
  const light = vars(schemes[0] ?? '');
  const dark = { ...light, ...vars((schemes[1] ?? '').split('}')[0] ?? '') };
  for (const [name, v] of [
    ['light', light],
    ['dark', dark],
  ] as const) {
    const pair = (fg: string, bg: string, min: number) =>
      assert.ok(contrast(v[fg] ?? '', v[bg] ?? '') >= min, `${name}: ${fg} on ${bg}`);
    for (const bg of ['bg', 'card', 'field']) pair('text', bg, 4.5);
    pair('muted', 'card', 4.5);
    pair('problem', 'problem-bg', 4.5);
    pair('problem', 'card', 4.5);
    pair('focus', 'card', 3);
    pair('focus', 'bg', 3);
    pair('field-border', 'card', 3);
  }
});

t('a theme file that does not parse, or messages that are not a JSON object of strings, stop the start', () => {
  const refused = (files: Record<string, string>, name: string, why: RegExp) => {
    const dir = themeFolder(files);
    try {
      loadTheme(dir);
    } catch (error) {
      assert.instance(error, ConfigError);
      assert.ok((error as Error).message.includes(join(dir, name)), (error as Error).message);
      assert.match((error as Error).message, why);
      return;
    }
    assert.unreachable(`${name} was accepted`);
  };
  refused({ 'consent.html': '{{#scopes}}<li>' }, 'consent.html', /not a valid mustache template/);
  refused({ 'messages/en.json': '["a"]' }, 'messages/en.json', /JSON object of strings/);
  refused({ 'messages/de.json': '{"a": 1}' }, 'messages/de.json', /JSON object of strings \("a" is not\)/);
  refused({ 'messages/fr.json': '{nope' }, 'messages/fr.json', /is not JSON/);
  refused({ 'messages/français.json': '{}' }, 'messages/français.json', /not named after a language/);
});

t('the logo: its type from the extension; another extension or a missing file stops the start', () => {
  const dir = tempDir('troupe-logo-');
  const types = { 'a.png': 'image/png', 'b.SVG': 'image/svg+xml', 'c.jpg': 'image/jpeg', 'd.jpeg': 'image/jpeg' };
  for (const [name, type] of Object.entries({ ...types, 'e.webp': 'image/webp' })) {
    writeFileSync(join(dir, name), 'x');
    const site = loadSignInSite({ productName: 'A', primaryColor: '#000', logo: join(dir, name) });
    assert.is(site.logo?.type, type, name);
  }
  assert.throws(
    () => loadSignInSite({ productName: 'A', primaryColor: '#000', logo: join(dir, 'gone.png') }),
    (e: Error) => e instanceof ConfigError && e.message.includes('gone.png') && /cannot read/.test(e.message),
  );
  assert.is(loadSignInSite({ productName: 'A', primaryColor: '#000' }).logo, undefined);
});

t.run();

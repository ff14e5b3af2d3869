/**
 * The authorization endpoint's pages in a theme (`theme.ts`): mustache templates filled with a
 * view of plain values, every text from the messages of the person's language (`language.ts`),
 * every value escaped. Nothing but the stylesheet and the logo of this server loads; no script.
 */
import Mustache from 'mustache';
import type {
  ConsentView,
  ErrorView,
  IndexView,
  Pages,
  PageRequest,
  SignInProblem,
  SignInView,
} from '../page-views.ts';
import { accountPage, type AccountView } from './account-pages.ts';
import { escapeHtml } from './html.ts';
import { negotiate } from './language.ts';
import { logoutPages } from './logout-pages.ts';
import { decisionForm, hiddenList, type Say } from './page-parts.ts';
import type { Messages, TemplateName, Theme } from './theme.ts';

export const STYLESHEET_PATH = '/oauth/sign-in/style.css';
export const LOGO_PATH = '/oauth/sign-in/logo';

/** What a deployment sets of the pages (`security.sign-in.*`). */
export interface Branding {
  readonly productName: string;
  /** Whether a logo is served at {@link LOGO_PATH}. */
  readonly logo: boolean;
  readonly supportUrl?: string | undefined;
}

/**
 * Only this server's stylesheet and images; nothing frames the page. No `form-action`: Chromium
 * applies it to the redirects that follow a form post too, so `'self'` blocks the 303 back to the
 * application's redirect_uri (test/http/authorize-browser.test.ts), and listing every registered
 * redirect origin would publish them all on every page.
 */
export const THEMED_CSP = [
  "default-src 'none'",
  "style-src 'self'",
  "img-src 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

/** `{name}` → the value named, text otherwise kept. */
const format = (text: string, values: Readonly<Record<string, string>>): string =>
  text.replace(/\{([A-Za-z]+)\}/g, (whole, name: string) => values[name] ?? whole);

type Tree = { [key: string]: string | Tree };

/** `{'signIn.title': 'Sign in'}` → `{signIn: {title: 'Sign in'}}`, as mustache's dotted names read. */
function nested(messages: Messages, values: Readonly<Record<string, string>>): Tree {
  const root: Tree = {};
  for (const [key, text] of Object.entries(messages)) {
    const path = key.split('.');
    const last = path.pop() ?? key;
    let node: Tree | undefined = root;
    for (const segment of path) {
      const next: string | Tree = (node[segment] ??= {});
      node = typeof next === 'string' ? undefined : next;
      if (node === undefined) break;
    }
    if (node !== undefined && node[last] === undefined) node[last] = format(text, values);
  }
  return root;
}

function problemText(problem: SignInProblem, say: Say): string {
  switch (problem.kind) {
    case 'credentials':
      return say('signIn.problem.credentials');
    case 'throttled':
      return say(problem.inFlight ? 'signIn.problem.busy' : 'signIn.problem.throttled', {
        seconds: String(problem.retryAfter),
      });
    case 'changed':
      return say('signIn.problem.changed');
    case 'invalid':
      return say('signIn.problem.invalid', { detail: problem.message });
  }
}

/** The pages of `theme`, branded. */
export function themedPages(theme: Theme, branding: Branding): Pages {
  const languages = [...theme.messages.keys()];

  function render(
    name: TemplateName,
    request: PageRequest,
    titleKey: string,
    values: Record<string, string>,
    view: (say: Say, lang: string) => Record<string, unknown>,
  ): string {
    const lang = negotiate(languages, request.acceptLanguage, request.uiLocales);
    const messages = theme.messages.get(lang) ?? {};
    const all = { product: branding.productName, ...values };
    const say: Say = (key, extra = {}, fallback = key) => {
      const text = messages[key];
      return text === undefined ? fallback : format(text, { ...all, ...extra });
    };
    const title = say('page.title', { title: say(titleKey) });
    return Mustache.render(
      theme.templates[name],
      {
        lang,
        title,
        product: branding.productName,
        logo: branding.logo ? LOGO_PATH : false,
        stylesheet: STYLESHEET_PATH,
        supportUrl: branding.supportUrl ?? false,
        t: nested(messages, all),
        ...view(say, lang),
      },
      theme.partials,
      { escape: escapeHtml },
    );
  }

  return {
    csp: THEMED_CSP,
    signIn: (view: SignInView, request: PageRequest) =>
      render('sign-in.html', request, 'signIn.title', { client: view.clientName }, (say) => ({
        client: view.clientName,
        hidden: hiddenList(view.hidden),
        problemId: 'problem',
        username: view.username ?? '',
        problem: view.problem === undefined ? false : { text: problemText(view.problem, say) },
        invalid: view.problem !== undefined && view.problem.kind !== 'throttled',
      })),
    consent: (view: ConsentView, request: PageRequest) =>
      render('consent.html', request, 'consent.title', { client: view.clientName, username: view.username }, (say) => ({
        client: view.clientName,
        clientId: view.clientId,
        username: view.username,
        someGranted: view.granted.length > 0 && view.scopes.some((s) => !view.granted.includes(s)),
        scopes: view.scopes.map((scope) => ({
          name: scope,
          description: say(`scope.${scope}`, {}, scope),
          isNew: view.granted.length > 0 && !view.granted.includes(scope),
        })),
        hidden: hiddenList(view.hidden),
        decision: decisionForm(say, '/oauth/authorize/consent', ['allow', 'consent.allow'], ['deny', 'consent.deny']),
      })),
    error: (view: ErrorView, request: PageRequest) =>
      render('error.html', request, 'error.title', {}, (say) => ({
        reason: view.reason,
        heading: say(`error.${view.reason}.heading`),
        text: say(`error.${view.reason}.text`),
        error: view.error,
        description: view.description,
      })),
    logout: logoutPages(render),
    account: (view: AccountView, request: PageRequest) => accountPage(render, problemText, view, request),
    index: (view: IndexView, request: PageRequest) =>
      render('index.html', request, 'index.title', {}, (say) => ({
        heading: say('index.title'),
        intro: say('index.intro'),
        links: view.links.map(({ name, path }) => ({ path, what: say(`index.link.${name}`) })),
      })),
  };
}

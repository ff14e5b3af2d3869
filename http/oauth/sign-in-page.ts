/**
 * The authorization endpoint's HTML: the sign-in form and the error page. Served by this server
 * alone (no external asset, no script): the form works without JavaScript. Every value is escaped.
 */
import { hash } from 'node:crypto';
import { escapeHtml } from './pages/html.ts';
import type { ConsentView, ErrorView, HiddenFields, Pages, SignInProblem, SignInView } from './page-views.ts';

const STYLE =
  'body{font-family:system-ui,sans-serif;max-width:24rem;margin:4rem auto;padding:0 1rem}' +
  'label{display:block;margin:.8rem 0 .2rem}input[type=text],input[type=password]{width:100%;padding:.4rem;box-sizing:border-box}' +
  'button{margin-top:1rem;padding:.5rem 1.2rem}.error{color:#a00}';

/** Only the inline style above may apply; nothing may frame the page, and no script runs. */
const PAGE_CSP = [
  "default-src 'none'",
  `style-src 'sha256-${hash('sha256', STYLE, 'base64')}'`,
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

const escape = escapeHtml;

const page = (title: string, body: string): string => `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>${escape(title)}</title>
  <style>${STYLE}</style>
</head>
<body>
${body}
</body>
</html>
`;

const hiddenInputs = (hidden: HiddenFields): string =>
  [...hidden]
    .map(([name, value]) => `    <input type="hidden" name="${escape(name)}" value="${escape(value)}">`)
    .join('\n');

function problemText(problem: SignInProblem): string {
  switch (problem.kind) {
    case 'credentials':
      return 'Wrong username or password.';
    case 'throttled':
      return `Too many failed sign-ins; try again in ${problem.retryAfter} seconds.`;
    case 'changed':
      return 'Your account changed since you signed in. Sign in again.';
    case 'invalid':
      return problem.message;
  }
}

function signIn(view: SignInView): string {
  const error =
    view.problem === undefined ? '' : `  <p class="error" role="alert">${escape(problemText(view.problem))}</p>\n`;
  return page(
    'Sign in',
    `  <h1>Sign in</h1>
  <p>${escape(view.clientName)} asks to act on your behalf.</p>
${error}  <form method="post" action="/oauth/authorize">
${hiddenInputs(view.hidden)}
    <label for="username">Username</label>
    <input type="text" id="username" name="username" autocomplete="username" required value="${escape(view.username ?? '')}">
    <label for="password">Password</label>
    <input type="password" id="password" name="password" autocomplete="current-password" required>
    <button type="submit">Sign in</button>
  </form>`,
  );
}

function consent(view: ConsentView): string {
  const scopes = view.scopes.map((s) => `    <li>${escape(s)}</li>`).join('\n');
  return page(
    'Allow access',
    `  <h1>Allow access</h1>
  <p>${escape(view.clientName)} asks to act on behalf of ${escape(view.username)}:</p>
  <ul>
${scopes}
  </ul>
  <form method="post" action="/oauth/authorize/consent">
${hiddenInputs(view.hidden)}
    <button type="submit" name="decision" value="allow">Allow</button>
    <button type="submit" name="decision" value="deny">Deny</button>
  </form>`,
  );
}

/** The page for a request that cannot be sent back to its client (unknown client, unregistered redirect). */
const error = (view: ErrorView): string =>
  page(
    'Authorization error',
    `  <h1>Authorization error</h1>
  <p class="error">${escape(view.error)}: ${escape(view.description)}</p>`,
  );

/** The pages with no theme: the form works without JavaScript, as every page here does. */
export const plainPages: Pages = { signIn, consent, error, csp: PAGE_CSP };

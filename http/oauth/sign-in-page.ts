/**
 * The authorization endpoint's HTML: the sign-in form and the error page. Served by this server
 * alone (no external asset, no script): the form works without JavaScript. Every value is escaped.
 */
import { hash } from 'node:crypto';

const STYLE =
  'body{font-family:system-ui,sans-serif;max-width:24rem;margin:4rem auto;padding:0 1rem}' +
  'label{display:block;margin:.8rem 0 .2rem}input[type=text],input[type=password]{width:100%;padding:.4rem;box-sizing:border-box}' +
  'button{margin-top:1rem;padding:.5rem 1.2rem}.error{color:#a00}';

/** Only the inline style above may apply; nothing may frame the page, and no script runs. */
export const PAGE_CSP = [
  "default-src 'none'",
  `style-src 'sha256-${hash('sha256', STYLE, 'base64')}'`,
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

const ENTITIES: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};
const escape = (s: string): string => s.replace(/[&<>"']/g, (c) => ENTITIES[c] ?? c);

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

export interface LoginForm {
  /** The client's name, or its id. */
  readonly clientName: string;
  /** The authorization request's parameters, sent back as hidden fields with the form. */
  readonly request: ReadonlyMap<string, string>;
  readonly csrfToken: string;
  readonly username?: string | undefined;
  /** Shown above the form: why the last attempt did not sign in. */
  readonly error?: string | undefined;
}

export function loginPage(form: LoginForm): string {
  const hidden = [...form.request, ['csrf_token', form.csrfToken] as const]
    .map(([name, value]) => `    <input type="hidden" name="${escape(name)}" value="${escape(value)}">`)
    .join('\n');
  const error = form.error === undefined ? '' : `  <p class="error" role="alert">${escape(form.error)}</p>\n`;
  return page(
    'Sign in',
    `  <h1>Sign in</h1>
  <p>${escape(form.clientName)} asks to act on your behalf.</p>
${error}  <form method="post" action="/oauth/authorize">
${hidden}
    <label for="username">Username</label>
    <input type="text" id="username" name="username" autocomplete="username" required value="${escape(form.username ?? '')}">
    <label for="password">Password</label>
    <input type="password" id="password" name="password" autocomplete="current-password" required>
    <button type="submit">Sign in</button>
  </form>`,
  );
}

/** The page for a request that cannot be sent back to its client (unknown client, unregistered redirect). */
export const errorPage = (error: string, description: string): string =>
  page(
    'Authorization error',
    `  <h1>Authorization error</h1>
  <p class="error">${escape(error)}: ${escape(description)}</p>`,
  );

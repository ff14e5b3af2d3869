/** The authorization-code flow as a browser without JavaScript would walk it, with fetch. */
import { createHash, randomBytes } from 'node:crypto';
import { USERS } from './tokens.ts';

export interface Pkce {
  readonly verifier: string;
  readonly challenge: string;
}

export function pkce(): Pkce {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

export interface ServedForm {
  readonly status: number;
  readonly headers: Headers;
  readonly html: string;
  /** `name=value` of the CSRF cookie, if one was set. */
  readonly cookie: string | undefined;
  /** `name=value` of the sign-in session's cookie, if one was set (a sign-in that went through). */
  readonly session: string | undefined;
  /** The hidden fields of the sign-in form. */
  readonly fields: URLSearchParams;
}

const unescape = (s: string): string =>
  s
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');

/** `name=value` of the cookie the answer set whose name ends with `name` (the `__Host-` one too). */
export function setCookie(headers: Headers, name: string): string | undefined {
  return headers
    .getSetCookie()
    .map((c) => c.split(';')[0] ?? '')
    .find((c) => c.split('=')[0]?.replace(/^__Host-/, '') === name);
}

/** What a page's answer carries for the browser: its hidden fields and the cookies it set. */
const served = (res: Response, html: string): ServedForm => ({
  status: res.status,
  headers: res.headers,
  html,
  cookie: setCookie(res.headers, 'troupe_authorize'),
  session: setCookie(res.headers, 'troupe_session'),
  fields: hiddenFields(html),
});

function hiddenFields(html: string): URLSearchParams {
  const fields = new URLSearchParams();
  for (const m of html.matchAll(/<input type="hidden" name="([^"]*)" value="([^"]*)">/g))
    fields.append(unescape(m[1] ?? ''), unescape(m[2] ?? ''));
  return fields;
}

export function authorizeUrl(base: string, params: Record<string, string>): string {
  return `${base}/oauth/authorize?${new URLSearchParams(params).toString()}`;
}

/** GET of an authorization URL, redirects not followed; `headers` as a browser would send them (its cookie). */
export async function openForm(url: string, headers: Record<string, string> = {}): Promise<ServedForm> {
  const res = await fetch(url, { redirect: 'manual', headers });
  return served(res, await res.text());
}

/** POST of the served form with `user`'s credentials; `change` edits the body before it goes. */
export function submit(
  base: string,
  form: ServedForm,
  user: { username: string; password: string } = USERS.john,
  change: (body: URLSearchParams) => void = () => {},
  cookie: string | undefined = form.cookie,
  headers: Record<string, string> = {},
): Promise<Response> {
  const body = new URLSearchParams(form.fields);
  body.set('username', user.username);
  body.set('password', user.password);
  change(body);
  return fetch(`${base}/oauth/authorize`, {
    method: 'POST',
    redirect: 'manual',
    headers: {
      'Content-Type': 'application/x-www-form-urlencoded',
      ...(cookie ? { Cookie: cookie } : {}),
      ...headers,
    },
    body: body.toString(),
  });
}

/** A page answered to a POST (the consent page after a sign-in), as a served form. */
export async function pageOf(res: Response): Promise<ServedForm> {
  return served(res, await res.text());
}

/** POST of the consent page's form with `decision` (Allow or Deny), as the browser holding `cookie` sends it. */
export function decide(
  base: string,
  page: ServedForm,
  decision: string,
  cookie: string | undefined,
  change: (body: URLSearchParams) => void = () => {},
): Promise<Response> {
  const body = new URLSearchParams(page.fields);
  body.set('decision', decision);
  change(body);
  return fetch(`${base}/oauth/authorize/consent`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', ...(cookie ? { Cookie: cookie } : {}) },
    body: body.toString(),
  });
}

/** The query of a redirect answer's Location. */
export function redirectedTo(res: Response): URL {
  const location = res.headers.get('location');
  if (location === null) throw new Error(`no redirect: ${res.status}`);
  return new URL(location);
}

/** A code for `clientId` at `redirectUri`, signed in as `user`. */
export async function codeFor(
  base: string,
  clientId: string,
  redirectUri: string,
  challenge: string,
  user: { username: string; password: string } = USERS.john,
  scope?: string,
): Promise<string> {
  const form = await openForm(
    authorizeUrl(base, {
      response_type: 'code',
      client_id: clientId,
      redirect_uri: redirectUri,
      code_challenge: challenge,
      code_challenge_method: 'S256',
      state: 'xyz',
      ...(scope === undefined ? {} : { scope }),
    }),
  );
  const res = await submit(base, form, user);
  const code = redirectedTo(res).searchParams.get('code');
  if (code === null) throw new Error(`no code: ${res.status} ${res.headers.get('location')}`);
  return code;
}

/** The account page (/oauth/account) as a browser without JavaScript walks it, with fetch and a cookie jar. */
import { authorizeUrl, decide, openForm, pageOf, pkce, redirectedTo, submit, type ServedForm } from './authorize.ts';
import { PARTNER } from './clients.ts';
import { basic, postToken, USERS, type TokenResponse } from './tokens.ts';

/** A browser's cookies, by name (paths aside: the server reuses one CSRF value for every form). */
export class Jar {
  private readonly values = new Map<string, string>();

  /** The `Cookie` header, as the browser sends it. */
  header(): Record<string, string> {
    const cookie = [...this.values].map(([name, value]) => `${name}=${value}`).join('; ');
    return cookie === '' ? {} : { Cookie: cookie };
  }

  /** Keeps what an answer set, and forgets what it cleared. */
  take(res: { headers: Headers }): void {
    for (const line of res.headers.getSetCookie()) {
      const [pair = '', ...attributes] = line.split(';');
      const at = pair.indexOf('=');
      const name = pair.slice(0, at).trim();
      const value = pair.slice(at + 1).trim();
      const expired = attributes.some((a) => /^\s*expires=Thu, 01 Jan 1970/i.test(a));
      if (value === '' || expired) this.values.delete(name);
      else this.values.set(name, value);
    }
  }

  get(name: string): string | undefined {
    return this.values.get(name);
  }

  set(name: string, value: string): void {
    this.values.set(name, value);
  }
}

/** GET of the account page with the jar's cookies. */
export async function accountPage(base: string, jar: Jar, headers: Record<string, string> = {}): Promise<ServedForm> {
  const page = await openForm(`${base}/oauth/account`, { ...jar.header(), ...headers });
  jar.take(page);
  return page;
}

/** POST of a form of the account page (`path` under /oauth/account) with the jar's cookies. */
export async function postAccount(
  base: string,
  path: string,
  jar: Jar,
  form: Record<string, string>,
): Promise<Response> {
  const res = await fetch(`${base}/oauth/account${path}`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', ...jar.header() },
    body: new URLSearchParams(form).toString(),
  });
  jar.take(res);
  return res;
}

/** Signs in on the account page: the form opened, then posted. */
export async function signInToAccount(
  base: string,
  jar: Jar,
  user: { username: string; password: string } = USERS.john,
): Promise<Response> {
  const form = await accountPage(base, jar);
  return postAccount(base, '', jar, { csrf_token: form.fields.get('csrf_token') ?? '', ...user });
}

/** The CSRF token of the signed-in page's forms (each form carries the same one). */
export const csrfOf = (page: ServedForm): string => page.fields.get('csrf_token') ?? '';

/**
 * `user` allows PARTNER `scope` in a browser of its own (signed in, then the consent page's Allow
 * unless allowed before) and redeems the code: the login's tokens.
 */
export async function allowPartner(
  base: string,
  user: { username: string; password: string } = USERS.john,
  scope = 'read write',
): Promise<TokenResponse> {
  const { challenge, verifier } = pkce();
  const form = await openForm(
    authorizeUrl(base, {
      response_type: 'code',
      client_id: PARTNER.id,
      redirect_uri: PARTNER.redirect,
      scope,
      state: 's',
      code_challenge: challenge,
      code_challenge_method: 'S256',
    }),
  );
  const signedIn = await submit(base, form, user);
  // Allowed before: the code at once; else the consent page, then Allow.
  const back = signedIn.status === 303 ? signedIn : await decide(base, await pageOf(signedIn), 'allow', form.cookie);
  const code = redirectedTo(back).searchParams.get('code') ?? '';
  const res = await postToken(
    base,
    { grant_type: 'authorization_code', code, redirect_uri: PARTNER.redirect, code_verifier: verifier },
    { Authorization: basic(PARTNER.id, PARTNER.secret) },
  );
  if (res.status !== 200) throw new Error(`no tokens: ${res.status} ${await res.text()}`);
  return (await res.json()) as TokenResponse;
}

/** A refresh of PARTNER's login: its status (200 while the login lives) and the next refresh token. */
export async function refreshPartner(base: string, refreshToken: string): Promise<{ status: number; next: string }> {
  const res = await postToken(
    base,
    { grant_type: 'refresh_token', refresh_token: refreshToken },
    { Authorization: basic(PARTNER.id, PARTNER.secret) },
  );
  const body = (await res.json()) as Partial<TokenResponse>;
  return { status: res.status, next: body.refresh_token ?? '' };
}

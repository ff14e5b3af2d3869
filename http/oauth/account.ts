/**
 * The account page, /oauth/account (Keycloak's account console, Google's "third-party apps with
 * account access"): through the browser's sign-in session, the applications the account allowed,
 * with the scopes in words, each with a form to remove its access, and a form to sign out
 * everywhere; without a session that counts, a sign-in form of its own (the authorization
 * endpoint's password check and throttle, for no client). The session is read from the store on
 * every request, so a session ended by any process is ended here at once. Every form carries a CSRF
 * token (`csrf.ts`) bound to the browser and to what the form is for (the sign-in, or the account
 * signed in); a change is made only by POST, after the session and the token are checked, and
 * answers 303 back to the page.
 */
import type { Context } from 'koa';
import { z } from 'zod';
import * as Token from '../../actors/token/protocol.ts';
import { ask } from '../../src/messaging/ask.ts';
import { page, redirect, secureHeaders, type AuthorizeRouteDeps } from './authorize-answers.ts';
import { authorizeCsrf, type AuthorizeCsrf } from './csrf.ts';
import type { SignInProblem } from './page-views.ts';
import type { AccountNotice } from './pages/account-pages.ts';
import { html, pageRequest } from './pages/authorize-pages.ts';
import { clearSessionCookie, sessionCookie } from './session-cookie.ts';
import { BAD_CREDENTIALS, refusedSignIn, signInSucceeded } from './sign-in-outcome.ts';
import { formBody, formParams } from '../middleware/body.ts';
import { replyValue } from '../problems.ts';
import { route, type Declared, type Route } from '../route-table.ts';
import { PUBLIC } from '../guards.ts';
import { documented, form as formSpec } from '../validation.ts';
import { securityEvent } from '../security-events.ts';

export const ACCOUNT_PATH = '/oauth/account';
const WITHDRAW_PATH = `${ACCOUNT_PATH}/withdraw`;
const SIGN_OUT_PATH = `${ACCOUNT_PATH}/sign-out`;

export type AccountRouteDeps = Pick<
  AuthorizeRouteDeps,
  'token' | 'askTimeoutMs' | 'maxBodyBytes' | 'keys' | 'pages' | 'logger'
>;

type Deps = AccountRouteDeps & { readonly csrf: AuthorizeCsrf };

/** The account a session signs in. */
interface SignedIn {
  readonly accountId: number;
  readonly username: string;
}

/** What the sign-in form's token is bound to. */
const SIGN_IN_FORM: ReadonlyMap<string, string> = new Map([['form', 'account-sign-in']]);
/** What the signed-in page's tokens are bound to: a form of one account's page is no form of another's. */
const accountForms = (account: SignedIn): ReadonlyMap<string, string> =>
  new Map([
    ['form', 'account'],
    ['account', String(account.accountId)],
  ]);

/** The account the browser's session cookie signs in now, read from the store. */
async function signedIn(ctx: Context, deps: Deps): Promise<SignedIn | undefined> {
  const session = sessionCookie(ctx);
  if (session === undefined) return undefined;
  const reply = await ask(deps.token, Token.getSession({ session }), deps.askTimeoutMs);
  return replyValue(reply) ?? undefined;
}

const languageOf = (ctx: Context) => pageRequest(ctx, new URLSearchParams(ctx.querystring));

/** The sign-in form, with a fresh token. */
async function showSignIn(
  ctx: Context,
  deps: Deps,
  status: number,
  extra: { username?: string; problem?: SignInProblem; notice?: AccountNotice } = {},
): Promise<void> {
  const csrfToken = await deps.csrf.issue(ctx, SIGN_IN_FORM);
  html(ctx, status, deps.pages.account({ state: 'sign-in', csrfToken, ...extra }, languageOf(ctx)));
}

/** The account's applications, with fresh tokens; the sign-in form when the account is gone meanwhile. */
async function showAccount(ctx: Context, deps: Deps, account: SignedIn, status = 200, notice?: AccountNotice) {
  const consents = await ask(deps.token, Token.listConsents({ accountId: account.accountId }), deps.askTimeoutMs);
  if (!consents.ok && consents.code === 'account.not_found') return showSignIn(ctx, deps, status, { notice });
  const applications = replyValue(consents);
  const csrfToken = await deps.csrf.issue(ctx, accountForms(account));
  const view = { state: 'signed-in', username: account.username, applications, csrfToken, notice } as const;
  html(ctx, status, deps.pages.account(view, languageOf(ctx)));
}

const backToPage = (ctx: Context): void => {
  ctx.status = 303;
  ctx.redirect(ACCOUNT_PATH);
};

/** POST /oauth/account: the sign-in form, as the authorization endpoint's, for no client. */
async function signIn(ctx: Context, deps: Deps): Promise<void> {
  const params = formParams(ctx);
  const username = params.get('username') ?? '';
  const password = params.get('password') ?? '';
  if (!(await deps.csrf.valid(ctx, params.get('csrf_token') ?? undefined, SIGN_IN_FORM)))
    return showSignIn(ctx, deps, 400, { username, notice: 'expired' });
  if (username === '' || password === '') return showSignIn(ctx, deps, 400, { username, problem: BAD_CREDENTIALS });
  const subject = { username };
  // TokenActor counts the sign-in as a login from the browser's address (429 before any BCrypt work).
  const reply = await ask(
    deps.token,
    Token.signIn({ username, password, address: ctx.ip, replacing: sessionCookie(ctx) }),
    deps.askTimeoutMs,
  );
  if (reply.ok) {
    signInSucceeded(ctx, deps.logger, subject, reply.value.session);
    return backToPage(ctx);
  }
  const again = refusedSignIn(ctx, deps.logger, subject, reply);
  if (again !== undefined) return showSignIn(ctx, deps, again.status, { username, problem: again.problem });
  replyValue(reply);
}

/**
 * A form of the signed-in page: `effect` runs only for a session that counts and a token served to
 * this browser for this account; else nothing changes (303 to the page, or the page again, 400).
 */
async function accountForm(
  ctx: Context,
  deps: Deps,
  effect: (account: SignedIn, params: URLSearchParams) => Promise<void>,
) {
  const params = formParams(ctx);
  const account = await signedIn(ctx, deps);
  if (account === undefined) return backToPage(ctx);
  if (!(await deps.csrf.valid(ctx, params.get('csrf_token') ?? undefined, accountForms(account))))
    return showAccount(ctx, deps, account, 400, 'expired');
  await effect(account, params);
}

/** Remove access: the consent withdrawn as the consents API withdraws it (the application's logins end). */
async function withdraw(ctx: Context, deps: Deps, account: SignedIn, params: URLSearchParams): Promise<void> {
  const clientId = params.get('client_id') ?? '';
  const reply = await ask(
    deps.token,
    Token.withdrawConsent({ accountId: account.accountId, clientId }),
    deps.askTimeoutMs,
  );
  // Nothing to withdraw (withdrawn already, or never given): the page shows what is left.
  if (reply.ok) securityEvent(deps.logger, ctx, 'consent.withdrawn', { username: reply.value.username, clientId });
  else if (reply.code !== 'consent.not_found' && reply.code !== 'account.not_found') replyValue(reply);
  backToPage(ctx);
}

/** Sign out everywhere: every sign-in session of the account ends; the applications keep their access. */
async function signOutEverywhere(ctx: Context, deps: Deps, account: SignedIn): Promise<void> {
  replyValue(await ask(deps.token, Token.endSessions({ accountId: account.accountId }), deps.askTimeoutMs));
  clearSessionCookie(ctx);
  securityEvent(deps.logger, ctx, 'session.ended', { username: account.username }, { reason: 'sign_out_everywhere' });
  html(ctx, 200, deps.pages.account({ state: 'signed-out' }, languageOf(ctx)));
}

const CSRF_TOKEN = z.string().meta({ description: 'From the served page; valid with the cookie it was served with' });
const EXPIRED =
  'The page again, with a fresh form: its CSRF token did not match this browser, the form, the account signed in and the server key, or was older than 10 minutes; nothing changed';
const NOT_SIGNED_IN = 'No sign-in session that counts (none, ended, expired, or its account changed): nothing changed';

const ACCOUNT_PAGE = {
  method: 'GET',
  path: ACCOUNT_PATH,
  tag: 'secured',
  summary:
    'The account page: through the sign-in session, the applications the account allowed (remove access) and sign out everywhere; else the sign-in form',
  replies: { 200: page('The account page, or the sign-in form (with a CSRF cookie)', ['Set-Cookie']) },
} satisfies Declared;

const ACCOUNT_SIGN_IN = {
  method: 'POST',
  path: ACCOUNT_PATH,
  tag: 'secured',
  summary:
    'Sign in to the account page: the password checked as at the authorization endpoint, a sign-in session begun',
  body: documented(formSpec(z.object({ csrf_token: CSRF_TOKEN, username: z.string(), password: z.string() }))),
  replies: {
    303: redirect('Signed in (the sign-in session’s cookie set): to /oauth/account', ['Set-Cookie']),
    400: page(`The form again: wrong username or password; or ${EXPIRED.charAt(0).toLowerCase()}${EXPIRED.slice(1)}`, [
      'Set-Cookie',
    ]),
    429: page('The form again: too many failed sign-ins for the username or address', ['Retry-After', 'Set-Cookie']),
  },
} satisfies Declared;

const ACCOUNT_WITHDRAW = {
  method: 'POST',
  path: WITHDRAW_PATH,
  tag: 'secured',
  summary: 'Remove an application’s access: the consent withdrawn, the application’s logins of the account ended',
  body: documented(formSpec(z.object({ csrf_token: CSRF_TOKEN, client_id: z.string() }))),
  replies: {
    303: redirect(`To /oauth/account: withdrawn, or nothing to withdraw; or ${NOT_SIGNED_IN}`),
    400: page(EXPIRED, ['Set-Cookie']),
  },
} satisfies Declared;

const ACCOUNT_SIGN_OUT = {
  method: 'POST',
  path: SIGN_OUT_PATH,
  tag: 'secured',
  summary: 'Sign out everywhere: every sign-in session of the account ends; applications keep their access',
  body: documented(formSpec(z.object({ csrf_token: CSRF_TOKEN }))),
  replies: {
    200: page('The signed-out page; the session cookie cleared', ['Set-Cookie']),
    303: redirect(`To /oauth/account: ${NOT_SIGNED_IN}`),
    400: page(EXPIRED, ['Set-Cookie']),
  },
} satisfies Declared;

/** GET /oauth/account and its forms. */
export function oauthAccountRoutes(routeDeps: AccountRouteDeps): Route[] {
  const deps: Deps = { ...routeDeps, csrf: authorizeCsrf(routeDeps.keys, ACCOUNT_PATH) };
  const parse = formBody(deps.maxBodyBytes);
  return [
    route({ ...ACCOUNT_PAGE, access: PUBLIC }, async function accountPage(ctx) {
      secureHeaders(ctx, deps.pages);
      const account = await signedIn(ctx, deps);
      await (account === undefined ? showSignIn(ctx, deps, 200) : showAccount(ctx, deps, account));
    }),
    route({ ...ACCOUNT_SIGN_IN, access: PUBLIC, parse }, async function accountSignIn(ctx) {
      secureHeaders(ctx, deps.pages);
      await signIn(ctx, deps);
    }),
    route({ ...ACCOUNT_WITHDRAW, access: PUBLIC, parse }, async function accountWithdraw(ctx) {
      secureHeaders(ctx, deps.pages);
      await accountForm(ctx, deps, (account, params) => withdraw(ctx, deps, account, params));
    }),
    route({ ...ACCOUNT_SIGN_OUT, access: PUBLIC, parse }, async function accountSignOut(ctx) {
      secureHeaders(ctx, deps.pages);
      await accountForm(ctx, deps, (account) => signOutEverywhere(ctx, deps, account));
    }),
  ];
}

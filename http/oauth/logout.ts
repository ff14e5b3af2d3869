/**
 * RP-initiated logout (OpenID Connect RP-Initiated Logout 1.0), `end_session_endpoint`: an
 * application sends the browser here, by GET or by a form POST, to end its sign-in session. With
 * an `id_token_hint` of the session's own account (or no session at all) the session ends at
 * once; without a hint, or with one of another account, the person is asked first (Sign out, Stay
 * signed in), on a page whose form carries a CSRF token bound to the session (`logout-form.ts`).
 * The session ends in the store, so in every process at once, and the cookie is cleared. Then the
 * browser goes back to the registered `post_logout_redirect_uri` with `state`, or sees a signed-out
 * page. Staying signed in goes back there too, as node-oidc-provider does: the application gets
 * its browser back whatever was chosen. HEAD never signs out (405).
 */
import type { Context } from 'koa';
import * as Token from '../../actors/token/protocol.ts';
import { ask } from '../../src/messaging/ask.ts';
import { AuthorizeError, redirectTo } from './authorization-request.ts';
import { page, pageForm, redirect, secureHeaders, type AuthorizeRouteDeps } from './authorize-answers.ts';
import { logoutCsrf, type LogoutCsrf } from './logout-form.ts';
import { readLogoutRequest, type LogoutRequest } from './logout-request.ts';
import { sendBack } from './redirects.ts';
import { html, pageRequest, showError } from './pages/authorize-pages.ts';
import { clearSessionCookie, sessionCookie } from './session-cookie.ts';
import { formBody, formParams } from '../middleware/body.ts';
import { replyValue } from '../problems.ts';
import * as S from '../openapi/shapes.ts';
import { changesState, oauthErrors, route, type Declared, type Route } from '../route-table.ts';
import { PUBLIC } from '../guards.ts';
import { documented } from '../validation.ts';
import { securityEvent } from '../security-events.ts';

export const LOGOUT_PATH = '/oauth/logout';

type Deps = AuthorizeRouteDeps & { readonly csrf: LogoutCsrf };

/** The confirmation page: fresh token for this browser's session and the checked request. */
async function confirm(ctx: Context, deps: Deps, request: LogoutRequest, params: URLSearchParams, expired = false) {
  const token = await deps.csrf.issue(sessionCookie(ctx), request.form);
  const client = request.client;
  const view = {
    clientName: client === undefined ? undefined : (client.clientName ?? client.clientId),
    hidden: new Map([...request.form, ['csrf_token', token]]),
    expired,
  };
  html(ctx, expired ? 400 : 200, deps.pages.logout.confirm(view, pageRequest(ctx, params)));
}

/** Ends the browser's session (only one of `subject`'s account, when given); false: it is another account's. */
async function signOut(ctx: Context, deps: Deps, request: LogoutRequest, subject?: string): Promise<boolean> {
  const session = sessionCookie(ctx);
  if (session === undefined) return true;
  const reply = replyValue(await ask(deps.token, Token.signOut({ session, subject }), deps.askTimeoutMs));
  if ('otherAccount' in reply) return false;
  clearSessionCookie(ctx);
  if (reply.ended !== null) {
    const clientId = request.client?.clientId;
    const who = { username: reply.ended.username, ...(clientId === undefined ? {} : { clientId }) };
    securityEvent(deps.logger, ctx, 'session.ended', who, { reason: 'logout' });
  }
  return true;
}

/** Back to the registered URI with `state`, or the page that says how it ended. */
function finish(ctx: Context, deps: Deps, request: LogoutRequest, params: URLSearchParams, signedOut: boolean) {
  if (request.redirectUri === undefined)
    return html(ctx, 200, deps.pages.logout.done({ signedOut }, pageRequest(ctx, params)));
  sendBack(ctx, 303, redirectTo(request.redirectUri, { state: request.state }));
}

/** The application's request, by GET or POST. */
async function logoutRequest(ctx: Context, deps: Deps, params: URLSearchParams): Promise<void> {
  const request = await readLogoutRequest(params, deps);
  if (request.subject === undefined || !(await signOut(ctx, deps, request, request.subject)))
    return confirm(ctx, deps, request, params);
  finish(ctx, deps, request, params, true);
}

/** The confirmation page's Sign out or Stay signed in. */
async function confirmation(ctx: Context, deps: Deps, params: URLSearchParams): Promise<void> {
  const request = await readLogoutRequest(params, deps);
  if (!(await deps.csrf.valid(params.get('csrf_token') ?? undefined, sessionCookie(ctx), request.form)))
    return confirm(ctx, deps, request, params, true);
  const [decision, ...more] = params.getAll('decision');
  if (more.length > 0 || (decision !== 'logout' && decision !== 'stay'))
    throw new AuthorizeError('invalid_request', 'decision must be logout or stay', undefined, 'request');
  if (decision === 'logout') await signOut(ctx, deps, request);
  finish(ctx, deps, request, params, decision === 'logout');
}

/** Refusals are the error page (400), whatever was sent: never a redirect. */
async function answering(ctx: Context, deps: Deps, params: URLSearchParams, work: () => Promise<void>) {
  secureHeaders(ctx, deps.pages);
  try {
    await work();
  } catch (error) {
    if (error instanceof AuthorizeError) return showError(ctx, deps.pages, error, params);
    throw error;
  }
}

const ERROR_PAGE =
  'The error page, never a redirect: an `id_token_hint` that is not an id_token of this server (malformed, `alg: none`, another signer, an access token), a `client_id` that is unknown or not the hint’s audience, a `post_logout_redirect_uri` the client did not register (compared exactly: no query added) or sent without `client_id` or `id_token_hint`, a repeated parameter; on the confirmation form, a `decision` other than logout or stay';
const SIGNED_OUT =
  'The confirmation page ("Sign out of …?": Sign out, Stay signed in) when there is no `id_token_hint` or it names another account than the session’s; otherwise signed out (the session ended in every process, its cookie cleared by `Set-Cookie` when the browser sent one) and, with no `post_logout_redirect_uri`, the signed-out page';
const BACK = 'Signed out: to the registered `post_logout_redirect_uri` with `state`';

const LOGOUT = {
  method: 'GET',
  path: LOGOUT_PATH,
  tag: 'secured',
  summary: 'RP-initiated logout (OpenID Connect RP-Initiated Logout 1.0): ends the browser’s sign-in session',
  query: documented(S.LogoutRequest),
  replies: { 200: page(SIGNED_OUT), 303: redirect(BACK), 400: page(ERROR_PAGE) },
} satisfies Declared;

const LOGOUT_FORM = {
  ...pageForm(
    LOGOUT_PATH,
    'RP-initiated logout by a form POST (the same parameters as GET), or the confirmation page’s choice (with `csrf_token` and `decision`)',
    S.LogoutForm,
  ),
  replies: {
    200: page(`${SIGNED_OUT}; after Stay signed in, a page that says so`),
    303: redirect(`${BACK}; after Stay signed in, there too, the session kept`),
    400: page(
      `${ERROR_PAGE}; or the confirmation page again when its CSRF token is older than 10 minutes or was not served to this browser’s session for this request`,
    ),
  },
} satisfies Declared;

/** GET and POST /oauth/logout: the OpenID Provider's `end_session_endpoint`. */
export function logoutRoutes(routeDeps: AuthorizeRouteDeps): Route[] {
  const deps: Deps = { ...routeDeps, csrf: logoutCsrf(routeDeps.keys) };
  return [
    changesState(
      oauthErrors(
        route({ ...LOGOUT, access: PUBLIC }, async function logout(ctx) {
          const query = new URLSearchParams(ctx.querystring);
          await answering(ctx, deps, query, () => logoutRequest(ctx, deps, query));
        }),
      ),
    ),
    oauthErrors(
      route({ ...LOGOUT_FORM, access: PUBLIC, parse: formBody(deps.maxBodyBytes) }, async function logoutForm(ctx) {
        const params = formParams(ctx);
        const isConfirmation = params.has('csrf_token') || params.has('decision');
        await answering(ctx, deps, params, () =>
          isConfirmation ? confirmation(ctx, deps, params) : logoutRequest(ctx, deps, params),
        );
      }),
    ),
  ];
}

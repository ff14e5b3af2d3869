import type { Context } from 'koa';
import * as Token from '../../actors/token/protocol.ts';
import { ask } from '../../src/messaging/ask.ts';
import { authorizeCsrf } from './csrf.ts';
import {
  AuthorizeError,
  codeTerms,
  isRequestByPost,
  readAuthorizationRequest,
  type AuthorizationRequest,
} from './authorization-request.ts';
import {
  answering,
  expired,
  page,
  pageForm,
  redirect,
  type AuthorizeRouteDeps,
  type Deps,
} from './authorize-answers.ts';
import { consentRoute } from './consent.ts';
import { showConsent, showForm } from './pages/authorize-pages.ts';
import { redirectBack, redirectError } from './redirects.ts';
import { consentTickets } from './consent-ticket.ts';
import { sessionCookie } from './session-cookie.ts';
import { BAD_CREDENTIALS, refusedSignIn, signInSucceeded } from './sign-in-outcome.ts';
import { authorizedBySession } from './signed-in.ts';
import { formBody, formParams } from '../middleware/body.ts';
import { replyValue } from '../problems.ts';
import * as S from '../openapi/shapes.ts';
import { oauthErrors, route, type Declared, type Route } from '../route-table.ts';
import { PUBLIC } from '../guards.ts';
import { documented } from '../validation.ts';

export type { AuthorizeRouteDeps } from './authorize-answers.ts';

async function signIn(ctx: Context, deps: Deps, request: AuthorizationRequest, params: URLSearchParams) {
  const username = params.get('username') ?? '';
  const password = params.get('password') ?? '';
  if (username === '' || password === '')
    return showForm(ctx, deps, request, 400, { username, problem: BAD_CREDENTIALS });
  const subject = { username, clientId: request.client.clientId };
  // TokenActor counts the sign-in as a login from the browser's address (429 before any BCrypt work).
  const reply = await ask(
    deps.token,
    Token.authorize({ ...codeTerms(request), username, password, address: ctx.ip, replacing: sessionCookie(ctx) }),
    deps.askTimeoutMs,
  );
  if (reply.ok) {
    signInSucceeded(ctx, deps.logger, subject, reply.value.session);
    if ('consent' in reply.value) return showConsent(ctx, deps, request, reply.value.consent);
    return redirectBack(ctx, request, { code: reply.value.code }, deps.issuer);
  }
  const again = refusedSignIn(ctx, deps.logger, subject, reply);
  if (again !== undefined) return showForm(ctx, deps, request, again.status, { username, problem: again.problem });
  const error = redirectError(reply.code);
  if (error !== undefined) throw new AuthorizeError(error, reply.message, request);
  replyValue(reply);
}

/** An authorization request, by GET or POST: the code through the sign-in session, or the sign-in form. */
async function authorizationRequest(ctx: Context, deps: Deps, params: URLSearchParams): Promise<void> {
  const request = readAuthorizationRequest(params, deps.clients);
  if (!(await authorizedBySession(ctx, deps, request))) await showForm(ctx, deps, request, 200);
}

const BACK_WITH_ERROR =
  'to the redirect_uri with `error` (`invalid_request`: missing or non-S256 PKCE, a repeated parameter, a `prompt`, `max_age` or `id_token_hint` that cannot be honoured; `unsupported_response_type`; `unauthorized_client`; `invalid_scope`; with `prompt=none`, `login_required` or `consent_required`), `error_description`, `state` and `iss`';

/** The query is read by the handler: its refusals are a page or a redirect, never the `validation` problem. */
const AUTHORIZATION_FORM = {
  method: 'GET',
  path: '/oauth/authorize',
  tag: 'secured',
  summary: 'The sign-in page an application sends its user to for an authorization code (PKCE S256)',
  query: documented(S.AuthorizationRequest),
  replies: {
    200: page(
      'The sign-in form (no script, no external asset), with a CSRF cookie; or, through the sign-in session, the consent page',
      ['Set-Cookie'],
    ),
    302: redirect(
      `Through the sign-in session (its cookie): to the redirect_uri with \`code\`, \`state\` and \`iss\`, no page; or back ${BACK_WITH_ERROR}`,
    ),
    400: page(
      'Error page, never a redirect: unknown client, unregistered `redirect_uri`, a repeated client_id or redirect_uri; on POST also a CSRF token that does not match its cookie and request',
    ),
  },
} satisfies Declared;

/** The form is read by the handler, as the query of {@link AUTHORIZATION_FORM}. */
const SIGN_IN = {
  ...pageForm(
    '/oauth/authorize',
    'Sign in; on success, back to the application with an authorization code. A form without `csrf_token`, `username` and `password` is an authorization request by POST (OpenID Connect), answered as the GET is',
    S.SignIn,
  ),
  replies: {
    200: page(
      'Signed in, and the client asks consent for a scope the account has not allowed it: the consent page (Allow, Deny), posting to /oauth/authorize/consent',
      ['Set-Cookie'],
    ),
    303: redirect(
      `Signed in (the sign-in session's cookie set): to the redirect_uri with \`code\` (single use, valid 60 s), \`state\` and \`iss\`; or back ${BACK_WITH_ERROR}`,
      ['Set-Cookie'],
    ),
    400: page('The form again with "Wrong username or password", or the error page', ['Set-Cookie']),
    429: page('The form again: too many failed sign-ins for the username or address', ['Retry-After', 'Set-Cookie']),
  },
} satisfies Declared;

/** GET /oauth/authorize shows the sign-in form; POST of it signs in and redirects with a code (RFC 6749 §4.1, RFC 7636, RFC 9207). */
export function oauthAuthorizeRoutes(routeDeps: AuthorizeRouteDeps): Route[] {
  const deps: Deps = {
    ...routeDeps,
    csrf: authorizeCsrf(routeDeps.keys),
    tickets: consentTickets(routeDeps.keys),
  };
  const form = formBody(deps.maxBodyBytes);
  return [
    oauthErrors(
      route({ ...AUTHORIZATION_FORM, access: PUBLIC }, async function authorizationForm(ctx) {
        const query = new URLSearchParams(ctx.querystring);
        await answering(ctx, deps, query, () => authorizationRequest(ctx, deps, query));
      }),
    ),
    oauthErrors(
      route({ ...SIGN_IN, access: PUBLIC, parse: form }, async function authorizationSignIn(ctx) {
        const params = formParams(ctx);
        await answering(ctx, deps, params, async () => {
          if (isRequestByPost(params)) return authorizationRequest(ctx, deps, params);
          const request = readAuthorizationRequest(params, deps.clients);
          if (!(await deps.csrf.valid(ctx, params.get('csrf_token') ?? undefined, request.params)))
            throw expired('sign-in');
          await signIn(ctx, deps, request, params);
        });
      }),
    ),
    consentRoute(deps, form),
  ];
}

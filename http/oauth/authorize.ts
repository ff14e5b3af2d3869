import type { Context } from 'koa';
import { z } from 'zod';
import * as Token from '../../actors/token/protocol.ts';
import { ask } from '../../src/messaging/ask.ts';
import type { KeyRing } from '../../src/security/key-ring.ts';
import { isThrottled } from '../../src/security/login-attempts.ts';
import { authorizeCsrf, type AuthorizeCsrf } from './csrf.ts';
import {
  AuthorizeError,
  readAuthorizationRequest,
  redirectTo,
  type AuthorizationRequest,
  type RedirectTarget,
} from './authorization-request.ts';
import { plainPages } from './sign-in-page.ts';
import type { ErrorReason, Pages, PageRequest, SignInProblem } from './page-views.ts';
import { formBody, formParams } from '../middleware/body.ts';
import type { OAuthRouteDeps } from './client-authentication.ts';
import { REPLY_ERRORS, replyValue, type ReplyCode } from '../problems.ts';
import type { ReplySpec } from '../openapi/replies.ts';
import * as S from '../openapi/shapes.ts';
import { oauthErrors, PUBLIC, route, type Declared, type Route } from '../route-table.ts';
import { documented, form as formSpec } from '../validation.ts';
import { securityEvent } from '../security-events.ts';

export interface AuthorizeRouteDeps extends OAuthRouteDeps {
  /** Sent back as `iss` with every response (RFC 9207). */
  readonly issuer: string;
  /** The signing keys: the sign-in form's CSRF key is derived from them (`csrf.ts`). */
  readonly keys: KeyRing;
  /** How the pages look and read; the plain pages of `sign-in-page.ts` when unset. */
  readonly pages?: Pages | undefined;
}

/** The route's dependencies with what it makes of them once. */
type Deps = AuthorizeRouteDeps & { readonly csrf: AuthorizeCsrf; readonly pages: Pages };

const BAD_CREDENTIALS: SignInProblem = { kind: 'credentials' };

/** What the browser asked for, for the page's language. */
const pageRequest = (ctx: Context, params: URLSearchParams): PageRequest => ({
  acceptLanguage: ctx.get('Accept-Language'),
  uiLocales: params.get('ui_locales') ?? undefined,
});

/** Every answer of the endpoint: never cached, never framed, never leaking its URL onwards. */
function secureHeaders(ctx: Context, pages: Pages): void {
  ctx.set({
    'Content-Security-Policy': pages.csp,
    'X-Frame-Options': 'DENY',
    'Cache-Control': 'no-store',
    Pragma: 'no-cache',
    'Referrer-Policy': 'no-referrer',
  });
}

function html(ctx: Context, status: number, body: string): void {
  ctx.status = status;
  ctx.type = 'text/html; charset=utf-8';
  ctx.body = body;
}

function redirectBack(ctx: Context, target: RedirectTarget, params: Record<string, string>, issuer: string): void {
  ctx.status = ctx.method === 'POST' ? 303 : 302;
  ctx.redirect(redirectTo(target.redirectUri, { ...params, state: target.state, iss: issuer }));
  // Koa's own body would repeat the URL, code included; a browser follows the Location anyway.
  ctx.type = 'text/html; charset=utf-8';
  ctx.body = '<!doctype html><title>Redirecting</title><p>Back to the application…</p>';
}

async function showForm(
  ctx: Context,
  deps: Deps,
  request: AuthorizationRequest,
  status: number,
  extra: { username?: string; problem?: SignInProblem } = {},
): Promise<void> {
  const csrfToken = await deps.csrf.issue(ctx, request.params);
  const clientName = request.client.clientName ?? request.client.clientId;
  const hidden = new Map([...request.params, ['csrf_token', csrfToken]]);
  html(ctx, status, deps.pages.signIn({ clientName, hidden, ...extra }, pageRequest(ctx, request.rawParams)));
}

/** Why a request could not be sent back to its client, from what the checks threw. */
function errorReason(error: AuthorizeError): ErrorReason {
  if (error.reason !== undefined) return error.reason;
  return error.error === 'invalid_client' ? 'unknown_client' : 'request';
}

/** Renders what the checks threw: a page when the client or redirect is not known good, else a redirect. */
async function answering(ctx: Context, deps: Deps, params: URLSearchParams, work: () => Promise<void>): Promise<void> {
  secureHeaders(ctx, deps.pages);
  try {
    await work();
  } catch (error) {
    if (error instanceof AuthorizeError)
      return error.target
        ? redirectBack(ctx, error.target, { error: error.error, error_description: error.description }, deps.issuer)
        : html(
            ctx,
            400,
            deps.pages.error(
              { reason: errorReason(error), error: error.error, description: error.description },
              pageRequest(ctx, params),
            ),
          );
    throw error;
  }
}

/**
 * The error a refusal is redirected back with: the reply table's OAuth error, except that a
 * redirect has no `invalid_client` (RFC 6749 §4.1.2.1); undefined for a code without one.
 */
function redirectError(code: string): string | undefined {
  if (!Object.hasOwn(REPLY_ERRORS, code)) return undefined;
  const row = REPLY_ERRORS[code as ReplyCode];
  if (!('oauth' in row)) return undefined;
  return row.oauth === 'invalid_client' ? 'unauthorized_client' : row.oauth;
}

async function signIn(ctx: Context, deps: Deps, request: AuthorizationRequest, params: URLSearchParams) {
  const username = params.get('username') ?? '';
  const password = params.get('password') ?? '';
  if (username === '' || password === '')
    return showForm(ctx, deps, request, 400, { username, problem: BAD_CREDENTIALS });
  const subject = { username, clientId: request.client.clientId };
  const { client, redirectUri, scope, codeChallenge } = request;
  // TokenActor counts the sign-in as a login from the browser's address (429 before any BCrypt work).
  const reply = await ask(
    deps.token,
    Token.authorize({
      clientId: client.clientId,
      redirectUri,
      username,
      password,
      scope,
      codeChallenge,
      address: ctx.ip,
    }),
    deps.askTimeoutMs,
  );
  if (isThrottled(reply)) {
    securityEvent(deps.logger, ctx, 'login.throttled', subject);
    ctx.set('Retry-After', String(reply.retryAfter));
    return showForm(ctx, deps, request, 429, {
      username,
      problem: { kind: 'throttled', retryAfter: reply.retryAfter },
    });
  }
  if (reply.ok) {
    securityEvent(deps.logger, ctx, 'login.succeeded', subject);
    return redirectBack(ctx, request, { code: reply.value.code }, deps.issuer);
  }
  if (reply.code === 'grant.invalid') {
    securityEvent(deps.logger, ctx, 'login.failed', subject);
    return showForm(ctx, deps, request, 400, { username, problem: BAD_CREDENTIALS });
  }
  if (reply.code === 'request.invalid')
    return showForm(ctx, deps, request, 400, { username, problem: { kind: 'invalid', message: reply.message } });
  const error = redirectError(reply.code);
  if (error !== undefined) throw new AuthorizeError(error, reply.message, request);
  replyValue(reply);
}

const PAGE_HEADERS = ['Content-Security-Policy', 'X-Frame-Options', 'Cache-Control', 'Referrer-Policy'];
const page = (description: string, extra: string[] = []): ReplySpec => ({
  description,
  schema: z.string(),
  type: 'text/html',
  headers: [...PAGE_HEADERS, ...extra],
});
const redirect = (description: string): ReplySpec => ({ ...page(description), headers: ['Location', ...PAGE_HEADERS] });
const BACK_WITH_ERROR =
  'to the redirect_uri with `error` (`invalid_request`: missing or non-S256 PKCE, a repeated parameter; `unsupported_response_type`; `unauthorized_client`; `invalid_scope`), `error_description`, `state` and `iss`';

/** The query is read by the handler: its refusals are a page or a redirect, never the `validation` problem. */
const AUTHORIZATION_FORM = {
  method: 'GET',
  path: '/oauth/authorize',
  tag: 'secured',
  summary: 'The sign-in page an application sends its user to for an authorization code (PKCE S256)',
  query: documented(S.AuthorizationRequest),
  replies: {
    200: page('The sign-in form (no script, no external asset), with a CSRF cookie', ['Set-Cookie']),
    302: redirect(`Back ${BACK_WITH_ERROR}`),
    400: page(
      'Error page, never a redirect: unknown client, unregistered `redirect_uri`, a repeated client_id or redirect_uri; on POST also a CSRF token that does not match its cookie and request',
    ),
  },
} satisfies Declared;

/** The form is read by the handler, as the query of {@link AUTHORIZATION_FORM}. */
const SIGN_IN = {
  method: 'POST',
  path: '/oauth/authorize',
  tag: 'secured',
  summary: 'Sign in; on success, back to the application with an authorization code',
  body: documented(formSpec(S.SignIn)),
  replies: {
    303: redirect(
      `Signed in: to the redirect_uri with \`code\` (single use, valid 60 s), \`state\` and \`iss\`; or back ${BACK_WITH_ERROR}`,
    ),
    400: page('The form again with "Wrong username or password", or the error page', ['Set-Cookie']),
    429: page('The form again: too many failed sign-ins for the username or address', ['Retry-After', 'Set-Cookie']),
  },
} satisfies Declared;

/** GET /oauth/authorize shows the sign-in form; POST of it signs in and redirects with a code (RFC 6749 §4.1, RFC 7636, RFC 9207). */
export function oauthAuthorizeRoutes(routeDeps: AuthorizeRouteDeps): Route[] {
  const deps: Deps = { ...routeDeps, csrf: authorizeCsrf(routeDeps.keys), pages: routeDeps.pages ?? plainPages };
  const form = formBody(deps.maxBodyBytes);
  return [
    oauthErrors(
      route({ ...AUTHORIZATION_FORM, access: PUBLIC }, async function authorizationForm(ctx) {
        const query = new URLSearchParams(ctx.querystring);
        await answering(ctx, deps, query, async () => {
          await showForm(ctx, deps, readAuthorizationRequest(query, deps.clients), 200);
        });
      }),
    ),
    oauthErrors(
      route({ ...SIGN_IN, access: PUBLIC, parse: form }, async function authorizationSignIn(ctx) {
        const params = formParams(ctx);
        await answering(ctx, deps, params, async () => {
          const request = readAuthorizationRequest(params, deps.clients);
          if (!(await deps.csrf.valid(ctx, params.get('csrf_token') ?? undefined, request.params)))
            throw new AuthorizeError(
              'invalid_request',
              'The sign-in form expired or was not served to this browser; start again from the application',
              undefined,
              'expired',
            );
          await signIn(ctx, deps, request, params);
        });
      }),
    ),
  ];
}

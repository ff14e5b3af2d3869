/**
 * What the authorization endpoint's routes share (the sign-in's and the consent's): their
 * dependencies, the headers of every answer, a page, a redirect back to the client, and the error
 * page or redirect a refusal becomes.
 */
import type { Context } from 'koa';
import { z } from 'zod';
import type { KeyRing } from '../../src/security/key-ring.ts';
import { AuthorizeError, redirectTo, type AuthorizationRequest, type RedirectTarget } from './authorization-request.ts';
import type { OAuthRouteDeps } from './client-authentication.ts';
import type { ConsentTickets } from './consent-ticket.ts';
import type { AuthorizeCsrf } from './csrf.ts';
import type { ErrorReason, Pages, PageRequest, SignInProblem } from './page-views.ts';
import { REPLY_ERRORS, type ReplyCode } from '../problems.ts';
import type { ReplySpec } from '../openapi/replies.ts';

export interface AuthorizeRouteDeps extends OAuthRouteDeps {
  /** Sent back as `iss` with every response (RFC 9207). */
  readonly issuer: string;
  /** The signing keys: the sign-in form's CSRF key and the consent ticket's are derived from them. */
  readonly keys: KeyRing;
  /** How the pages look and read (the theme of `security.sign-in.*`, `pages/sign-in-site.ts`). */
  readonly pages: Pages;
}

/** The routes' dependencies with what they make of them once. */
export type Deps = AuthorizeRouteDeps & {
  readonly csrf: AuthorizeCsrf;
  readonly tickets: ConsentTickets;
};

/** What the browser asked for, for the page's language. */
export const pageRequest = (ctx: Context, params: URLSearchParams): PageRequest => ({
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

export function html(ctx: Context, status: number, body: string): void {
  ctx.status = status;
  ctx.type = 'text/html; charset=utf-8';
  ctx.body = body;
}

export function redirectBack(
  ctx: Context,
  target: RedirectTarget,
  params: Record<string, string>,
  issuer: string,
): void {
  ctx.status = ctx.method === 'POST' ? 303 : 302;
  ctx.redirect(redirectTo(target.redirectUri, { ...params, state: target.state, iss: issuer }));
  // Koa's own body would repeat the URL, code included; a browser follows the Location anyway.
  ctx.type = 'text/html; charset=utf-8';
  ctx.body = '<!doctype html><title>Redirecting</title><p>Back to the application…</p>';
}

/** The sign-in form for the request, with a fresh CSRF token (and the browser's cookie). */
export async function showForm(
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
export async function answering(
  ctx: Context,
  deps: Deps,
  params: URLSearchParams,
  work: () => Promise<void>,
): Promise<void> {
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

/** A form that did not come from this browser's page for this request, or came too late. */
export const expired = (form: string): AuthorizeError =>
  new AuthorizeError(
    'invalid_request',
    `The ${form} form expired or was not served to this browser; start again from the application`,
    undefined,
    'expired',
  );

/**
 * The error a refusal is redirected back with: the reply table's OAuth error, except that a
 * redirect has no `invalid_client` (RFC 6749 §4.1.2.1); undefined for a code without one.
 */
export function redirectError(code: string): string | undefined {
  if (!Object.hasOwn(REPLY_ERRORS, code)) return undefined;
  const row = REPLY_ERRORS[code as ReplyCode];
  if (!('oauth' in row)) return undefined;
  return row.oauth === 'invalid_client' ? 'unauthorized_client' : row.oauth;
}

const PAGE_HEADERS = ['Content-Security-Policy', 'X-Frame-Options', 'Cache-Control', 'Referrer-Policy'];
export const page = (description: string, extra: string[] = []): ReplySpec => ({
  description,
  schema: z.string(),
  type: 'text/html',
  headers: [...PAGE_HEADERS, ...extra],
});
export const redirect = (description: string): ReplySpec => ({
  ...page(description),
  headers: ['Location', ...PAGE_HEADERS],
});

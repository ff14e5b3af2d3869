/**
 * The pages the authorization endpoint answers with: the sign-in form, the consent page and the
 * error page, each rendered in the person's language with what it needs made fresh (a CSRF token
 * and the browser's cookie; for consent, a ticket). Redirects back to the client are apart
 * (`../redirects.ts`).
 */
import type { Context } from 'koa';
import type * as Token from '../../../actors/token/protocol.ts';
import type { AuthorizeError, AuthorizationRequest } from '../authorization-request.ts';
import type { ConsentTickets } from '../consent-ticket.ts';
import type { AuthorizeCsrf } from '../csrf.ts';
import type { ErrorReason, Pages, PageRequest, SignInProblem } from '../page-views.ts';

/** What rendering a page needs: the theme's pages, and the makers of its form's tokens. */
export interface PageDeps {
  readonly csrf: AuthorizeCsrf;
  readonly tickets: ConsentTickets;
  readonly pages: Pages;
}

/** What the browser asked for, for the page's language. */
export const pageRequest = (ctx: Context, params: URLSearchParams): PageRequest => ({
  acceptLanguage: ctx.get('Accept-Language'),
  uiLocales: params.get('ui_locales') ?? undefined,
});

export function html(ctx: Context, status: number, body: string): void {
  ctx.status = status;
  ctx.type = 'text/html; charset=utf-8';
  ctx.body = body;
}

/** The sign-in form for the request, with a fresh CSRF token (and the browser's cookie). */
export async function showForm(
  ctx: Context,
  deps: PageDeps,
  request: AuthorizationRequest,
  status: number,
  extra: { username?: string; problem?: SignInProblem } = {},
): Promise<void> {
  const csrfToken = await deps.csrf.issue(ctx, request.params);
  const clientName = request.client.clientName ?? request.client.clientId;
  const hidden = new Map([...request.params, ['csrf_token', csrfToken]]);
  html(ctx, status, deps.pages.signIn({ clientName, hidden, ...extra }, pageRequest(ctx, request.rawParams)));
}

/** The consent page for a sign-in that needs it: a fresh CSRF token and a ticket for the account. */
export async function showConsent(
  ctx: Context,
  deps: PageDeps,
  request: AuthorizationRequest,
  consent: Token.ConsentNeeded['consent'],
): Promise<void> {
  const csrfToken = await deps.csrf.issue(ctx, request.params);
  const ticket = await deps.tickets.issue(ctx, request.params, consent);
  const { client } = request;
  const hidden = new Map([...request.params, ['csrf_token', csrfToken], ['consent_ticket', ticket]]);
  const view = {
    clientName: client.clientName ?? client.clientId,
    clientId: client.clientId,
    username: consent.username,
    scopes: consent.scopes,
    granted: consent.granted,
    hidden,
  };
  html(ctx, 200, deps.pages.consent(view, pageRequest(ctx, request.rawParams)));
}

/** Why a request could not be sent back to its client, from what the checks threw. */
function errorReason(error: AuthorizeError): ErrorReason {
  if (error.reason !== undefined) return error.reason;
  return error.error === 'invalid_client' ? 'unknown_client' : 'request';
}

/** The error page for a refusal that cannot be sent back to the client (400). */
export function showError(ctx: Context, pages: Pages, error: AuthorizeError, params: URLSearchParams): void {
  const view = { reason: errorReason(error), error: error.error, description: error.description };
  html(ctx, 400, pages.error(view, pageRequest(ctx, params)));
}

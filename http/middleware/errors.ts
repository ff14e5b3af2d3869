import type { Context } from 'koa';
import type { Logger } from '../../src/logger.ts';
import { ActorUnavailableError, AskTimeoutError, MailboxFullError } from '../../src/messaging/ask.ts';
import { HttpProblem, INTERNAL_DETAIL, OAuthError, oauthErrorOf, problemBody, unavailable } from '../problems.ts';
import { answeredRequestId, type AppState } from '../state.ts';
import { StoreUnavailableError } from '../../src/stores/store-unavailable.ts';

/** The route's declaration decides (`http/route-table.ts`); a path no route has is answered as a problem. */
const inOAuthForm = (state: AppState): boolean => state.errorFormat === 'oauth';

/** Errors thrown by Koa's helpers (body parser, router): `status` plus an `expose`d message. */
function exposedStatus(error: unknown): { status: number; message: string } | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const { status, expose, message } = error as { status?: unknown; expose?: unknown; message?: unknown };
  if (typeof status !== 'number' || status < 400 || status > 499) return undefined;
  return {
    status,
    message: expose === true && typeof message === 'string' ? message : 'The request could not be processed',
  };
}

function renderOAuth(ctx: Context, e: OAuthError): void {
  ctx.status = e.status;
  ctx.set(e.headers);
  ctx.body = { error: e.error, error_description: e.description };
}

function renderProblem(ctx: Context, state: AppState, e: HttpProblem): void {
  ctx.status = e.status;
  ctx.set(e.headers);
  ctx.body = problemBody(e.status, e.code, e.detail, answeredRequestId(state), e.errors);
  ctx.type = 'application/problem+json';
}

/** On a route declaring OAuth errors every error speaks RFC 6749 §5.2, whatever raised it. */
function asOAuth(problem: HttpProblem): OAuthError {
  return new OAuthError(problem.status, oauthErrorOf(problem.status), problem.detail, { ...problem.headers });
}

function toKnown(state: AppState, error: unknown): HttpProblem | OAuthError | undefined {
  if (error instanceof HttpProblem || error instanceof OAuthError) return error;
  if (
    error instanceof StoreUnavailableError ||
    error instanceof AskTimeoutError ||
    error instanceof ActorUnavailableError ||
    error instanceof MailboxFullError
  )
    return unavailable();
  const exposed = exposedStatus(error);
  if (!exposed) return undefined;
  if (inOAuthForm(state)) return new OAuthError(exposed.status, 'invalid_request', exposed.message);
  const detail = exposed.status === 400 ? 'The request body is not valid JSON' : exposed.message;
  return new HttpProblem(exposed.status, exposed.status === 413 ? 'payload_too_large' : 'bad_request', detail);
}

/** A request no route answered (404, 405, 501 with no body) as the error the client gets. */
export function unroutedError(ctx: Context): HttpProblem | undefined {
  if (ctx.body !== undefined && ctx.body !== null) return undefined;
  if (ctx.status === 404) return new HttpProblem(404, 'not_found', `No resource at ${ctx.path}`);
  if (ctx.status === 405)
    return new HttpProblem(405, 'method_not_allowed', `${ctx.method} is not allowed here`, {
      headers: { Allow: ctx.response.get('Allow') },
    });
  if (ctx.status === 501) return new HttpProblem(501, 'not_implemented', `${ctx.method} is not supported`);
  return undefined;
}

/**
 * Renders `error` as the response: problem+json, or OAuth JSON on a route that declares it and for
 * authentication; anything unexpected is a 500 whose text never reaches the client, logged with
 * the request id.
 */
export function renderError(ctx: Context, state: AppState, error: unknown, logger: Logger): void {
  if (error instanceof AskTimeoutError) state.askTimedOut = true;
  let known = toKnown(state, error);
  if (!known) {
    logger.error({ requestId: state.requestId, callerRequestId: state.callerRequestId, err: error }, 'request failed');
    known = new HttpProblem(500, 'internal', INTERNAL_DETAIL);
  }
  if (known instanceof HttpProblem && inOAuthForm(state)) known = asOAuth(known);
  if (known instanceof OAuthError) return renderOAuth(ctx, known);
  renderProblem(ctx, state, known);
}

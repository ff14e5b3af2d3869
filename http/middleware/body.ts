import { bodyParser } from '@koa/bodyparser';
import type { Context, Middleware } from 'koa';
import { HttpProblem, OAuthError } from '../problems.ts';
import type { AppState } from '../state.ts';

const BODY_METHODS = ['POST', 'PUT', 'PATCH', 'DELETE'];

/** Koa's `is()` answers null when the request has no body at all; `Content-Length: 0` is no body either. */
const hasBody = (ctx: Context): boolean => ctx.request.is('*/*') !== null && ctx.request.length !== 0;

/**
 * JSON request bodies: another media type is 415, malformed JSON 400, too large 413 (all as
 * problems, via the error handler). No body leaves `ctx.request.body` undefined.
 */
export function jsonBody(maxBytes: number): Middleware<AppState> {
  const parse = bodyParser({ enableTypes: ['json'], jsonLimit: maxBytes, parsedMethods: BODY_METHODS, encoding: 'utf-8' });
  return async function parseJson(ctx, next) {
    if (!BODY_METHODS.includes(ctx.method) || !hasBody(ctx)) return next();
    if (!ctx.request.is('application/json', '+json')) {
      throw new HttpProblem(415, 'unsupported_media_type', 'The request body must be application/json');
    }
    await parse(ctx, async () => {});
    await next();
  };
}

/**
 * Form bodies for the OAuth endpoints, parsed with URLSearchParams so that a repeated parameter
 * can be refused (RFC 6749 §3.2). The parameters land in `ctx.state`-free `ctx.request.body`.
 */
export function formBody(maxBytes: number): Middleware<AppState> {
  const parse = bodyParser({ enableTypes: ['form'], formLimit: maxBytes, parsedMethods: ['POST'] });
  return async function parseForm(ctx, next) {
    if (!hasBody(ctx) || !ctx.request.is('application/x-www-form-urlencoded')) {
      throw new OAuthError(400, 'invalid_request', 'The request body must be application/x-www-form-urlencoded');
    }
    await parse(ctx, async () => {});
    ctx.request.body = new URLSearchParams(ctx.request.rawBody);
    await next();
  };
}

/** The form parameters parsed by {@link formBody}. */
export function formParams(ctx: Context): URLSearchParams {
  const body = ctx.request.body;
  return body instanceof URLSearchParams ? body : new URLSearchParams();
}

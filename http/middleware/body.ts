import { bodyParser } from '@koa/bodyparser';
import { text as readText } from 'co-body';
import type { Context, Middleware, ParameterizedContext } from 'koa';
import { HttpProblem, OAuthError } from '../problems.ts';
import type { AppState } from '../state.ts';

const BODY_METHODS = ['POST', 'PUT', 'PATCH', 'DELETE'];

/** Koa's `is()` answers null when the request has no body at all; `Content-Length: 0` is none either. */
const hasBody = (ctx: Context): boolean => ctx.request.length !== 0 && ctx.request.is('*/*') !== null;

/**
 * The same rule read from the two headers alone (a chunked body, or a Content-Length above 0),
 * for the OAuth forms: Koa's `is()` parses the media type with type-is, which the form's one
 * comparison does not need, on the path every service-to-service request takes.
 */
function declaresBody(ctx: Context): boolean {
  const { 'transfer-encoding': chunked, 'content-length': length } = ctx.req.headers;
  return chunked !== undefined || Number(length) > 0;
}

/** The media type of a Content-Type value: lower case, its parameters left out. */
function mediaType(header: string): string {
  const end = header.indexOf(';');
  return (end === -1 ? header : header.slice(0, end)).trim().toLowerCase();
}

/**
 * Runs a body parser. A body that does not decode as its `Content-Encoding` says (gzip, deflate or
 * br garbage) makes zlib throw a plain error with no status: that is the client's mistake, a 400.
 */
async function parseWith(parse: Middleware<AppState>, ctx: ParameterizedContext<AppState>): Promise<void> {
  try {
    await parse(ctx, async () => {});
  } catch (error) {
    const status = (error as { status?: unknown } | null)?.status;
    if (typeof status === 'number' || !/^(gzip|x-gzip|deflate|br)$/i.test(ctx.get('Content-Encoding').trim()))
      throw error;
    throw new HttpProblem(
      400,
      'bad_request',
      `The request body is not valid ${ctx.get('Content-Encoding').trim().toLowerCase()} data`,
    );
  }
}

/**
 * JSON request bodies: another media type is 415, malformed JSON 400, too large 413 (all as
 * problems, via the error handler). No body leaves `ctx.request.body` undefined.
 */
export function jsonBody(maxBytes: number): Middleware<AppState> {
  const parse = bodyParser({
    enableTypes: ['json'],
    jsonLimit: maxBytes,
    parsedMethods: BODY_METHODS,
    encoding: 'utf-8',
  });
  return async function parseJson(ctx, next) {
    if (!BODY_METHODS.includes(ctx.method) || !hasBody(ctx)) return next();
    if (!ctx.request.is('application/json', '+json')) {
      throw new HttpProblem(415, 'unsupported_media_type', 'The request body must be application/json');
    }
    await parseWith(parse, ctx);
    await next();
  };
}

/**
 * Form bodies for the OAuth endpoints, read as text (co-body: the declared length, the size limit
 * as 413, `Content-Encoding` inflated) and parsed once with URLSearchParams, so that a repeated
 * parameter can be refused (RFC 6749 §3.2). The parameters land in `ctx.request.body`. A
 * general-purpose form parser (qs, nested keys) would only be undone here: these are flat forms,
 * and the token endpoint's requests are the busiest a service-to-service caller sends.
 */
export function formBody(maxBytes: number): Middleware<AppState> {
  const parse: Middleware<AppState> = async (ctx) => {
    ctx.request.body = new URLSearchParams(await readText(ctx.req, { limit: maxBytes, encoding: 'utf8' }));
  };
  return async function parseForm(ctx, next) {
    if (!declaresBody(ctx) || mediaType(ctx.get('Content-Type')) !== 'application/x-www-form-urlencoded') {
      throw new OAuthError(400, 'invalid_request', 'The request body must be application/x-www-form-urlencoded');
    }
    await parseWith(parse, ctx);
    await next();
  };
}

/** The form parameters parsed by {@link formBody}. */
export function formParams(ctx: Context): URLSearchParams {
  const body = ctx.request.body;
  return body instanceof URLSearchParams ? body : new URLSearchParams();
}

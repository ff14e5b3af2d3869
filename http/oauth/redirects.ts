/**
 * The authorization endpoint's answers that send the browser back to the client: a code, or an
 * error the client may read (RFC 6749 §4.1.2, with `state` and RFC 9207's `iss`). Pages are apart
 * (`pages/authorize-pages.ts`).
 */
import type { Context } from 'koa';
import { redirectTo, type RedirectTarget } from './authorization-request.ts';
import { REPLY_ERRORS, type ReplyCode } from '../problems.ts';

export function redirectBack(
  ctx: Context,
  target: RedirectTarget,
  params: Record<string, string>,
  issuer: string,
): void {
  sendBack(
    ctx,
    ctx.method === 'POST' ? 303 : 302,
    redirectTo(target.redirectUri, { ...params, state: target.state, iss: issuer }),
  );
}

/** The browser sent back to the application at `url` (a registered URI with its parameters). */
export function sendBack(ctx: Context, status: 302 | 303, url: string): void {
  ctx.status = status;
  ctx.redirect(url);
  // Koa's own body would repeat the URL, code included; a browser follows the Location anyway.
  ctx.type = 'text/html; charset=utf-8';
  ctx.body = '<!doctype html><title>Redirecting</title><p>Back to the application…</p>';
}

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

/**
 * The sign-in form's CSRF token, bound to the browser and to the authorization request: a random
 * nonce in an HttpOnly, SameSite=Lax cookie, and in the form a digest of that nonce with the
 * request's parameters and the time the form was served. Another site can neither read the cookie
 * nor compute the digest; a form of one request cannot be posted for another. No server secret is
 * involved, so every process (and every instance) checks what any other served.
 */
import { hash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Context } from 'koa';

export const CSRF_COOKIE = 'troupe_authorize';

/** Seconds a served form stays usable. */
export const FORM_VALIDITY_S = 600;

const digest = (nonce: string, issuedAt: number, request: ReadonlyMap<string, string>): string =>
  hash('sha256', JSON.stringify([nonce, issuedAt, [...request].sort(([a], [b]) => (a < b ? -1 : 1))]), 'base64url');

/** A new nonce in the cookie, and the form's token for `request`. */
export function issueCsrfToken(ctx: Context, request: ReadonlyMap<string, string>): string {
  const nonce = randomBytes(32).toString('base64url');
  const issuedAt = Math.floor(Date.now() / 1000);
  ctx.cookies.set(CSRF_COOKIE, nonce, {
    httpOnly: true,
    sameSite: 'lax',
    secure: ctx.secure,
    path: '/oauth/authorize',
    maxAge: FORM_VALIDITY_S * 1000,
    overwrite: true,
  });
  return `${issuedAt}.${digest(nonce, issuedAt, request)}`;
}

/** Whether the posted token was served with this browser's cookie for this very request, and is fresh. */
export function csrfTokenValid(ctx: Context, token: string | undefined, request: ReadonlyMap<string, string>): boolean {
  const nonce = ctx.cookies.get(CSRF_COOKIE);
  const m = /^(\d{1,12})\.([A-Za-z0-9_-]{43})$/.exec(token ?? '');
  if (nonce === undefined || !m?.[1] || !m[2]) return false;
  const issuedAt = Number(m[1]);
  const age = Math.floor(Date.now() / 1000) - issuedAt;
  if (age < 0 || age > FORM_VALIDITY_S) return false;
  const expected = Buffer.from(digest(nonce, issuedAt, request));
  const given = Buffer.from(m[2]);
  return expected.length === given.length && timingSafeEqual(expected, given);
}

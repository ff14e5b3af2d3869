/**
 * The sign-in session's cookie (`src/security/sign-in-sessions.ts`). Over HTTPS (as the server sees
 * it: TLS, or `X-Forwarded-Proto` behind `server.trusted-proxies`) it is `__Host-troupe_session`:
 * Secure, Path=/, no Domain, so a sibling subdomain cannot set it and plain HTTP never carries it;
 * a cookie of the plain name is then ignored. Over plain HTTP (development on loopback) it is
 * `troupe_session`. Always HttpOnly (no script reads it) and SameSite=Lax: an application's link
 * to the authorization endpoint carries it (single sign-on), a cross-site form post does not.
 */
import type { Context } from 'koa';

/** The cookie over plain HTTP. */
export const SESSION_COOKIE = 'troupe_session';
/** The cookie over HTTPS: only this host, over HTTPS, can have set it. */
export const SECURE_SESSION_COOKIE = '__Host-troupe_session';

const cookieName = (ctx: Context): string => (ctx.secure ? SECURE_SESSION_COOKIE : SESSION_COOKIE);

/** The value the browser sent, if any (its form is checked where it is used). */
export const sessionCookie = (ctx: Context): string | undefined => ctx.cookies.get(cookieName(ctx));

/** Sets the cookie to `value` until `expiresAt` (epoch seconds), the session's own end. */
export function setSessionCookie(ctx: Context, value: string, expiresAt: number): void {
  ctx.cookies.set(cookieName(ctx), value, {
    httpOnly: true,
    sameSite: 'lax',
    secure: ctx.secure,
    path: '/',
    expires: new Date(expiresAt * 1000),
    overwrite: true,
  });
}

/** Tells the browser to forget the cookie. */
export function clearSessionCookie(ctx: Context): void {
  ctx.cookies.set(cookieName(ctx), null, {
    httpOnly: true,
    sameSite: 'lax',
    secure: ctx.secure,
    path: '/',
    overwrite: true,
  });
}

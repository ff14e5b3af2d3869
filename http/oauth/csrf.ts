/**
 * The sign-in form's CSRF token, bound to the browser, to the authorization request and to a
 * server secret. The browser holds a random value in an HttpOnly, SameSite=Lax cookie; the form
 * carries the time it was served and an HMAC, under a key only the servers know, of that value, the
 * time and the request's parameters. A cookie value someone else chose gives no token without the
 * key, and a form of one request cannot be posted for another.
 *
 * The cookie is set once and kept: opening the page again (a second tab, a second authorization
 * request) reuses the browser's value, so every form served to the browser stays valid.
 *
 * Over HTTPS (as the server sees it: TLS, or `X-Forwarded-Proto` behind `server.trusted-proxies`)
 * the cookie is `__Host-troupe_authorize` (Secure, Path=/, no Domain): a sibling subdomain cannot
 * set it, nor can anyone on plain HTTP; a cookie of the plain name is then ignored. Over plain HTTP
 * (development on loopback, where a Secure cookie is not kept by every browser) it is
 * `troupe_authorize`, limited to `/oauth/authorize`.
 *
 * The HMAC key is derived (HKDF-SHA256) from the private half of the signing keys, which every
 * process and instance of one service already shares (the key set in the store, or
 * `security.signing-key`): a form served by one process is accepted by any other. A form is checked
 * against every key that verifies now, so a rotation does not invalidate it; a key taken out
 * (`keys retire`) takes its forms with it.
 */
import { epochSeconds } from '../../src/security/epoch.ts';
import { createHmac, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Context } from 'koa';
import type { UsableKey } from '../../src/security/key-material.ts';
import type { KeyRing } from '../../src/security/key-ring.ts';

/** The cookie over plain HTTP. */
export const CSRF_COOKIE = 'troupe_authorize';
/** The cookie over HTTPS: only this host, over HTTPS, can have set it. */
export const SECURE_CSRF_COOKIE = '__Host-troupe_authorize';

/** Seconds a served form stays usable. */
export const FORM_VALIDITY_S = 600;

/** What the form's HMAC key is derived for: this key serves nothing else. */
const HKDF_INFO = 'troupe sign-in form csrf v1';
const BROWSER_VALUE = /^[A-Za-z0-9_-]{43}$/;
const TOKEN = /^(\d{1,12})\.([A-Za-z0-9_-]{43})$/;

/** The private material of a signing key: a MAC secret's bytes, or an EC or RSA key's `d`. */
function privateMaterial(key: UsableKey): Buffer {
  if (key.signKey.type === 'secret') return key.signKey.export();
  const { d } = key.signKey.export({ format: 'jwk' });
  if (typeof d !== 'string') throw new Error(`signing key ${key.kid} has no private part`);
  return Buffer.from(d, 'base64url');
}

/**
 * A key per signing key, derived (HKDF-SHA256) from its private material for `info` alone, so that
 * each use (the form's CSRF token, the consent ticket) has a key that serves nothing else. Keyed by
 * the ring's own key objects: a key gone from the ring takes its derived key with it.
 */
export function derivedKeys(info: string): (key: UsableKey) => Buffer {
  const derived = new WeakMap<UsableKey, Buffer>();
  return (key) => {
    let k = derived.get(key);
    if (k === undefined) {
      k = Buffer.from(hkdfSync('sha256', privateMaterial(key), Buffer.alloc(0), info, 32));
      derived.set(key, k);
    }
    return k;
  };
}

const cookieName = (ctx: Context): string => (ctx.secure ? SECURE_CSRF_COOKIE : CSRF_COOKIE);

/** The browser's random value in its CSRF cookie, when it holds a well-formed one. */
export function browserValue(ctx: Context): string | undefined {
  const value = ctx.cookies.get(cookieName(ctx));
  return value !== undefined && BROWSER_VALUE.test(value) ? value : undefined;
}

/** The value each answer set the CSRF cookie to: a browser that came without one has it from then on. */
const answered = new WeakMap<Context, string>();

/**
 * The browser's value as this answer leaves it: the one {@link AuthorizeCsrf.issue} just set, else
 * the one the browser sent. What a consent ticket served beside a form's token is bound to.
 */
export const answeredBrowserValue = (ctx: Context): string | undefined => answered.get(ctx) ?? browserValue(ctx);

/** The request's parameters in one order, for a MAC. */
export const sorted = (request: ReadonlyMap<string, string>): [string, string][] =>
  [...request].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));

/**
 * Form tokens under the key derived for `info`: `<issued at>.<HMAC of the binding, that time and
 * the request>`, checked against every key that verifies now and fresh for {@link FORM_VALIDITY_S}.
 * The binding is what ties a form to one browser (its CSRF cookie's value, its session cookie's).
 */
export function formTokens(keys: KeyRing, info: string) {
  const formKey = derivedKeys(info);
  const mac = (key: UsableKey, binding: string, issuedAt: number, request: ReadonlyMap<string, string>): Buffer =>
    createHmac('sha256', formKey(key))
      .update(JSON.stringify([binding, issuedAt, sorted(request)]))
      .digest();
  return {
    async issue(binding: string, request: ReadonlyMap<string, string>): Promise<string> {
      const key = await keys.signing();
      const issuedAt = epochSeconds();
      return `${issuedAt}.${mac(key, binding, issuedAt, request).toString('base64url')}`;
    },
    async valid(token: string | undefined, binding: string, request: ReadonlyMap<string, string>): Promise<boolean> {
      const m = TOKEN.exec(token ?? '');
      if (!m?.[1] || !m[2]) return false;
      const issuedAt = Number(m[1]);
      const age = epochSeconds() - issuedAt;
      if (age < 0 || age > FORM_VALIDITY_S) return false;
      const given = Buffer.from(m[2], 'base64url');
      let matched = false;
      for (const { key } of await keys.keys())
        if (timingSafeEqual(mac(key, binding, issuedAt, request), given)) matched = true;
      return matched;
    },
  };
}

export interface AuthorizeCsrf {
  /** The browser's value in the cookie (kept when it has one), and the form's token for `request`. */
  issue(ctx: Context, request: ReadonlyMap<string, string>): Promise<string>;
  /** Whether the posted token was served with this browser's cookie for this very request, and is fresh. */
  valid(ctx: Context, token: string | undefined, request: ReadonlyMap<string, string>): Promise<boolean>;
}

/**
 * The CSRF tokens of the forms served under `plainPath` (the path of the cookie over plain HTTP;
 * over HTTPS it is `/`, as the `__Host-` name requires).
 */
export function authorizeCsrf(keys: KeyRing, plainPath = '/oauth/authorize'): AuthorizeCsrf {
  const tokens = formTokens(keys, HKDF_INFO);
  return {
    async issue(ctx, request) {
      const value = browserValue(ctx) ?? randomBytes(32).toString('base64url');
      answered.set(ctx, value);
      const token = await tokens.issue(value, request);
      // Set again even when kept: its lifetime runs from the newest form.
      ctx.cookies.set(cookieName(ctx), value, {
        httpOnly: true,
        sameSite: 'lax',
        secure: ctx.secure,
        path: ctx.secure ? '/' : plainPath,
        maxAge: FORM_VALIDITY_S * 1000,
        overwrite: true,
      });
      return token;
    },
    async valid(ctx, token, request) {
      const value = browserValue(ctx);
      return value !== undefined && tokens.valid(token, value, request);
    },
  };
}

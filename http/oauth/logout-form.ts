/**
 * The logout confirmation form's CSRF token. It binds the browser's sign-in session (the value of
 * its session cookie, or none), the time the form was served and the checked logout request, under
 * an HMAC key only the servers know: derived (HKDF-SHA256) from the signing keys for this form
 * alone, as the sign-in form's key is (`csrf.ts`), so a form served by one process is accepted by
 * any other. No cookie of its own: the session cookie (HttpOnly, SameSite=Lax) is what the form
 * would end, and a form of another browser, another session (a sign-in since), another request or
 * older than {@link FORM_VALIDITY_S} does not match. Checked against every key that verifies now.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { epochSeconds } from '../../src/security/epoch.ts';
import type { UsableKey } from '../../src/security/key-material.ts';
import type { KeyRing } from '../../src/security/key-ring.ts';
import { derivedKeys, FORM_VALIDITY_S, sorted } from './csrf.ts';

const HKDF_INFO = 'troupe logout form csrf v1';
const TOKEN = /^(\d{1,12})\.([A-Za-z0-9_-]{43})$/;

export interface LogoutCsrf {
  /** The form's token for the browser holding `session` (its cookie's value, if any) and `request`. */
  issue(session: string | undefined, request: ReadonlyMap<string, string>): Promise<string>;
  /** Whether `token` was served to this session for this very request, and is fresh. */
  valid(token: string | undefined, session: string | undefined, request: ReadonlyMap<string, string>): Promise<boolean>;
}

export function logoutCsrf(keys: KeyRing): LogoutCsrf {
  const formKey = derivedKeys(HKDF_INFO);
  const mac = (key: UsableKey, session: string, issuedAt: number, request: ReadonlyMap<string, string>): Buffer =>
    createHmac('sha256', formKey(key))
      .update(JSON.stringify([session, issuedAt, sorted(request)]))
      .digest();
  return {
    async issue(session, request) {
      const issuedAt = epochSeconds();
      const key = await keys.signing();
      return `${issuedAt}.${mac(key, session ?? '', issuedAt, request).toString('base64url')}`;
    },
    async valid(token, session, request) {
      const m = TOKEN.exec(token ?? '');
      if (!m?.[1] || !m[2]) return false;
      const issuedAt = Number(m[1]);
      const age = epochSeconds() - issuedAt;
      if (age < 0 || age > FORM_VALIDITY_S) return false;
      const given = Buffer.from(m[2], 'base64url');
      let matched = false;
      for (const { key } of await keys.keys())
        if (timingSafeEqual(mac(key, session ?? '', issuedAt, request), given)) matched = true;
      return matched;
    },
  };
}

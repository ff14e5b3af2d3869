/**
 * The logout confirmation form's CSRF token. It binds the browser's sign-in session (the value of
 * its session cookie, or none), the time the form was served and the checked logout request, under
 * an HMAC key only the servers know: derived (HKDF-SHA256) from the signing keys for this form
 * alone, as the sign-in form's key is (`csrf.ts`), so a form served by one process is accepted by
 * any other. No cookie of its own: the session cookie (HttpOnly, SameSite=Lax) is what the form
 * would end, and a form of another browser, another session (a sign-in since), another request or
 * older than `FORM_VALIDITY_S` (`csrf.ts`) does not match. Checked against every key that verifies now.
 */
import type { KeyRing } from '../../src/security/key-ring.ts';
import { formTokens } from './csrf.ts';

const HKDF_INFO = 'troupe logout form csrf v1';

export interface LogoutCsrf {
  /** The form's token for the browser holding `session` (its cookie's value, if any) and `request`. */
  issue(session: string | undefined, request: ReadonlyMap<string, string>): Promise<string>;
  /** Whether `token` was served to this session for this very request, and is fresh. */
  valid(token: string | undefined, session: string | undefined, request: ReadonlyMap<string, string>): Promise<boolean>;
}

export function logoutCsrf(keys: KeyRing): LogoutCsrf {
  const tokens = formTokens(keys, HKDF_INFO);
  return {
    issue: (session, request) => tokens.issue(session ?? '', request),
    valid: (token, session, request) => tokens.valid(token, session ?? '', request),
  };
}

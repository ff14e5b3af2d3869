/**
 * The consent ticket: what the consent form carries to prove that this browser signed in, with the
 * right password, to this very authorization request, a short while ago. It names the account
 * (id, security version, username), when its password matched (the code's `auth_time`) and a random
 * id of its own, and is bound, by an HMAC under a key
 * only the servers know, to the browser's CSRF cookie value (csrf.ts), the request's parameters and
 * its expiry: a ticket cannot be made without the key, used from another browser, used for another
 * request or client, or used past {@link TICKET_VALIDITY_S}. It decides once: TokenActor spends its
 * id in the store with the first decision, Allow or Deny, and refuses any later one, in any
 * process. Whether the account is still as it was (enabled, at that security version) is
 * TokenActor's to check when the consent is given.
 *
 * The key is derived from the signing keys as the form's CSRF key is, for this use alone; a ticket
 * is checked against every key that verifies now, so any process of the service accepts it.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Context } from 'koa';
import { epochSeconds } from '../../src/security/epoch.ts';
import type { UsableKey } from '../../src/security/key-material.ts';
import type { KeyRing } from '../../src/security/key-ring.ts';
import { answeredBrowserValue, browserValue, derivedKeys, sorted } from './csrf.ts';

const HKDF_INFO = 'troupe consent ticket v1';
const TICKET = /^(\d{1,12})\.([A-Za-z0-9_-]{1,400})\.([A-Za-z0-9_-]{43})$/;

/**
 * Seconds a consent page may wait for its decision. The ticket stands for a password checked a
 * moment before, and the page asks only for one click after reading a few scopes: five minutes is
 * ample for that, half the sign-in form's ten (whose password is still to be typed), and keeps a
 * page left open on a shared screen from standing as a sign-in for long.
 */
export const TICKET_VALIDITY_S = 300;

/** The account that signed in, as it was when its password matched, and when that was (epoch seconds). */
export interface TicketAccount {
  readonly accountId: number;
  readonly accountVersion: number;
  readonly username: string;
  readonly authTime: number;
}

/** A genuine ticket, as read: the account it names, and the ticket to spend with its decision. */
export interface ReadTicket extends TicketAccount {
  readonly ticket: { readonly id: string; readonly expiresAt: number };
}

export interface ConsentTickets {
  /** A ticket for the account, bound to this browser's cookie (set by the form's CSRF token) and the request. */
  issue(ctx: Context, request: ReadonlyMap<string, string>, account: TicketAccount): Promise<string>;
  /**
   * The account a ticket names, with its id and expiry, when it is genuine, of this browser and
   * request, and not expired (whether it was spent is TokenActor's to find).
   */
  read(ctx: Context, ticket: string | undefined, request: ReadonlyMap<string, string>): Promise<ReadTicket | undefined>;
}

/** A ticket's own id: 128 random bits, base64url. */
const TICKET_ID = /^[A-Za-z0-9_-]{22}$/;

function parsed(payload: string, expiresAt: number): ReadTicket | undefined {
  try {
    const value: unknown = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
    if (!Array.isArray(value) || value.length !== 5) return undefined;
    const [accountId, accountVersion, username, authTime, id] = value as unknown[];
    if (!Number.isSafeInteger(accountId) || !Number.isSafeInteger(accountVersion) || typeof username !== 'string')
      return undefined;
    if (!Number.isSafeInteger(authTime) || typeof id !== 'string' || !TICKET_ID.test(id)) return undefined;
    const ticket = { id, expiresAt };
    return {
      accountId: accountId as number,
      accountVersion: accountVersion as number,
      username,
      authTime: authTime as number,
      ticket,
    };
  } catch {
    return undefined;
  }
}

export function consentTickets(keys: KeyRing): ConsentTickets {
  const ticketKey = derivedKeys(HKDF_INFO);
  const mac = (
    key: UsableKey,
    value: string,
    expiresAt: number,
    payload: string,
    request: ReadonlyMap<string, string>,
  ) =>
    createHmac('sha256', ticketKey(key))
      .update(JSON.stringify([value, expiresAt, payload, sorted(request)]))
      .digest();
  return {
    async issue(ctx, request, account) {
      // Beside the page's CSRF token, whose issue sets the browser's cookie when it came without
      // one: after the sign-in form it has one, but through the sign-in session it may have none
      // (it never served a form here, or its form's cookie expired).
      const cookie = answeredBrowserValue(ctx);
      if (cookie === undefined) throw new Error('a consent ticket is issued only beside a CSRF token');
      const expiresAt = epochSeconds() + TICKET_VALIDITY_S;
      const id = randomBytes(16).toString('base64url');
      const payload = Buffer.from(
        JSON.stringify([account.accountId, account.accountVersion, account.username, account.authTime, id]),
      ).toString('base64url');
      const key = await keys.signing();
      return `${expiresAt}.${payload}.${mac(key, cookie, expiresAt, payload, request).toString('base64url')}`;
    },
    async read(ctx, ticket, request) {
      const value = browserValue(ctx);
      const m = TICKET.exec(ticket ?? '');
      if (value === undefined || !m?.[1] || !m[2] || !m[3]) return undefined;
      const expiresAt = Number(m[1]);
      const left = expiresAt - epochSeconds();
      if (left < 0 || left > TICKET_VALIDITY_S) return undefined;
      const given = Buffer.from(m[3], 'base64url');
      let matched = false;
      for (const { key } of await keys.keys())
        if (timingSafeEqual(mac(key, value, expiresAt, m[2], request), given)) matched = true;
      return matched ? parsed(m[2], expiresAt) : undefined;
    },
  };
}

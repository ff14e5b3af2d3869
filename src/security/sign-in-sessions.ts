/**
 * Sign-in sessions: what lets a person who signed in at the authorization endpoint authorize a
 * second application without the password. The browser holds a random value (a cookie); the store
 * holds its hash, the account and the account's security version at the sign-in
 * (`../stores/session-store.ts`). A session counts only while it is neither ended nor expired and
 * its account still exists, is enabled and has the version it had then: every change that ends an
 * account's logins today (a new password, disabling, a role, every login ended) ends its sessions
 * too, in every process, because each use reads the session and the account from the store.
 */
import { randomBytes } from 'node:crypto';
import type { AccountRecord, AccountStore } from '../stores/account-store.ts';
import type { SessionRecord, SessionStore } from '../stores/session-store.ts';
import { secondsClock } from './epoch.ts';
import { hashToken } from './refresh-tokens.ts';

/** A session cookie's value: 32 random bytes, base64url. */
const SESSION_VALUE = /^[A-Za-z0-9_-]{43}$/;

export const looksLikeSessionValue = (value: string): boolean => SESSION_VALUE.test(value);

/** A session that counts, with its account as read now. */
export interface SignedIn {
  readonly session: SessionRecord;
  readonly account: AccountRecord;
}

export interface SessionDeps {
  readonly store: SessionStore;
  readonly accounts: AccountStore;
  /** Seconds a session lasts from its sign-in. */
  readonly maxAge: number;
  /** Epoch milliseconds. */
  readonly now?: () => number;
}

export type Sessions = ReturnType<typeof createSessions>;

export function createSessions(deps: SessionDeps) {
  const seconds = secondsClock(deps.now);

  /** A new session of `account` as read when its password matched at `authTime`: the cookie's value. */
  const start = async (account: AccountRecord, authTime: number): Promise<{ value: string; expiresAt: number }> => {
    const value = randomBytes(32).toString('base64url');
    const createdAt = seconds();
    const expiresAt = authTime + deps.maxAge;
    await deps.store.insert({
      idHash: hashToken(value),
      accountId: account.id,
      accountVersion: account.securityVersion,
      authTime,
      createdAt,
      expiresAt,
      endedAt: null,
    });
    return { value, expiresAt };
  };

  /** The session the cookie's `value` names, if it still counts, with its account as read now. */
  const current = async (value: string | undefined): Promise<SignedIn | undefined> => {
    if (value === undefined || !looksLikeSessionValue(value)) return undefined;
    const session = await deps.store.find(hashToken(value));
    if (!session || session.endedAt !== null || session.expiresAt <= seconds()) return undefined;
    const account = await deps.accounts.findById(session.accountId);
    if (!account?.enabled || account.securityVersion !== session.accountVersion) return undefined;
    return { session, account };
  };

  /** Ends the session the cookie's `value` names; its record as it was, when it was going. */
  const end = async (value: string | undefined): Promise<SessionRecord | undefined> => {
    if (value === undefined || !looksLikeSessionValue(value)) return undefined;
    const idHash = hashToken(value);
    const session = await deps.store.find(idHash);
    if (!session || !(await deps.store.end(idHash, seconds()))) return undefined;
    return session;
  };

  /** Ends every session of the account; how many were going. */
  const endForAccount = (accountId: number): Promise<number> => deps.store.endForAccount(accountId, seconds());

  /** The account's sessions that are going. */
  const list = (accountId: number): Promise<readonly SessionRecord[]> =>
    deps.store.listForAccount(accountId, seconds());

  /** Forgets sessions expired or ended; idempotent, as every purge. */
  const purge = (): Promise<number> => deps.store.purgeExpired(seconds());

  return { start, current, end, endForAccount, list, purge };
}

/**
 * Password logins in flight in this TokenActor, by a digest of all that decides their check: the
 * message kind, client, username (as usernames compare), password, address and scope. A login
 * alike to one in flight joins it instead of starting its own: the throttle counts them once and
 * BCrypt compares once, and each joined login then goes on from the shared verdict as its own
 * (its own reads, its own tokens or code). So a burst of one person's identical logins is one
 * guess, never a run of counted attempts that fills the throttle's count.
 *
 * Only the digest is kept as a key, and only while the first login is in flight: no password
 * outlives its request. What is kept is this process's own work; other processes count theirs in
 * the shared store as any other attempt, so nothing here can go stale when another one writes it.
 */
import { hash } from 'node:crypto';
import { UNADDRESSED } from '../../../src/security/login-attempts.ts';
import { canonicalUsername } from '../../../src/security/usernames.ts';
import type { Command } from '../protocol.ts';

type PasswordLogin = Extract<Command, { type: 'IssueToken' | 'Authorize' }>;

const keyOf = (msg: PasswordLogin): string =>
  hash(
    'sha256',
    JSON.stringify([
      msg.type,
      msg.clientId,
      canonicalUsername(msg.username),
      msg.password,
      msg.address ?? UNADDRESSED,
      msg.scope ?? null,
    ]),
    'base64url',
  );

export function loginsInFlight() {
  const joinedBy = new Map<string, PasswordLogin[]>();
  const keys = new WeakMap<PasswordLogin, string>();
  return {
    /** True: a login alike is in flight, and `msg` now waits for its verdict; false: `msg` leads its own. */
    join(msg: PasswordLogin): boolean {
      const key = keyOf(msg);
      const joined = joinedBy.get(key);
      if (joined) {
        joined.push(msg);
        return true;
      }
      joinedBy.set(key, []);
      keys.set(msg, key);
      return false;
    },
    /**
     * The logins that joined `leader`, once its verdict is known; later logins alike lead their
     * own. Empty for a login that led nothing or was released already.
     */
    release(leader: PasswordLogin): readonly PasswordLogin[] {
      const key = keys.get(leader);
      if (key === undefined) return [];
      keys.delete(leader);
      const joined = joinedBy.get(key) ?? [];
      joinedBy.delete(key);
      return joined;
    },
  };
}

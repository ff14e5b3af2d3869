/**
 * Password logins in flight in this TokenActor, by a digest of all that decides their check: the
 * grant type, client, username (as usernames compare), password, address and scope. A login alike
 * to one in flight joins it instead of starting its own: the throttle counts them once and BCrypt
 * compares once, and each joined login then goes on from the shared judgement as its own (its own
 * reads, its own tokens or code). So a burst of one person's identical logins is one guess, never
 * a run of counted attempts that fills the throttle's count.
 *
 * Only the digest is kept as a key, and only while the first login is judged: no password
 * outlives its request. What is kept is this process's own work; other processes count theirs in
 * the shared store like every other attempt, so nothing here can go stale when another one writes it.
 * The map is touched only in synchronous steps of the actor's own thread: no two logins race on it.
 */
import { hash } from 'node:crypto';
import { UNADDRESSED } from '../../../src/security/login-attempts.ts';
import { canonicalUsername } from '../../../src/security/usernames.ts';
import type { PasswordLogin } from './password-login.ts';

export const keyOf = (grant: string, login: PasswordLogin): string =>
  hash(
    'sha256',
    JSON.stringify([
      grant,
      login.clientId,
      canonicalUsername(login.username),
      login.password,
      login.address ?? UNADDRESSED,
      login.scope ?? null,
    ]),
    'base64url',
  );

export function loginsInFlight<J>() {
  const judging = new Map<string, Promise<J>>();
  return {
    /**
     * The judgement of the login alike in flight under `key`, or, when none is, `judge()`'s, shared
     * with every login alike that arrives until it settles. `led`: this login's own judgement.
     */
    async share(key: string, judge: () => Promise<J>): Promise<{ readonly judged: J; readonly led: boolean }> {
      const joined = judging.get(key);
      if (joined) return { judged: await joined, led: false };
      const own = judge();
      const done = (): void => void judging.delete(key);
      judging.set(key, own);
      own.then(done, done);
      return { judged: await own, led: true };
    },
  };
}

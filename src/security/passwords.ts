/** BCrypt on a pool of worker threads, so a burst of logins never stalls the event loop. */
import { availableParallelism } from 'node:os';
import bcrypt from 'bcryptjs';
import { Piscina } from 'piscina';
import { withoutBcryptPrefix } from './formats.ts';

const WORKER = new URL('./password-worker.mjs', import.meta.url).href;

export interface PasswordHasher {
  /** True when `password` matches the BCrypt `hash` ($2a$, $2b$ or $2y$, optionally `{bcrypt}`-prefixed). */
  verify(password: string, hash: string): Promise<boolean>;
  hash(password: string, cost?: number): Promise<string>;
  close(): Promise<void>;
}

/** Passwords longer than this many UTF-8 bytes would be silently truncated by BCrypt. */
export const MAX_PASSWORD_BYTES = 72;

export const isTooLong = (password: string): boolean => bcrypt.truncates(password);

/**
 * Why a password presented for a login is refused before any comparison, or undefined: past
 * BCrypt's limit a comparison would read only the first bytes. The one rule for every login
 * (the password grant and the sign-in form): no request may carry such a password, so the answer
 * is a malformed request (OAuth `invalid_request`), not a wrong password.
 */
export const overLongPassword = (password: string): string | undefined =>
  isTooLong(password) ? `Passwords longer than ${MAX_PASSWORD_BYTES} bytes are not accepted` : undefined;

/** The cost factor of a BCrypt hash, or undefined when it is not one. */
export function costOf(hash: string): number | undefined {
  const m = /^\$2[aby]\$(\d\d)\$/.exec(withoutBcryptPrefix(hash));
  return m?.[1] === undefined ? undefined : Number(m[1]);
}

export function createPasswordHasher(threads = availableParallelism()): PasswordHasher {
  const pool = new Piscina({ filename: WORKER, minThreads: 1, maxThreads: Math.max(1, threads), idleTimeout: 30_000 });
  return {
    async verify(password, hash) {
      const normalized = withoutBcryptPrefix(hash);
      if (costOf(normalized) === undefined) return false;
      return (await pool.run({ password, hash: normalized }, { name: 'compare' })) === true;
    },
    async hash(password, cost = 10) {
      return String(await pool.run({ password, cost }, { name: 'hash' }));
    },
    close: () => pool.destroy(),
  };
}

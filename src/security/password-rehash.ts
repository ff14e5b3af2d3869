/**
 * A login's password hashed again at `security.password.bcrypt-cost` when its stored hash has
 * another cost. A stored hash keeps the cost it was made at, and a comparison costs what its hash
 * says; so after the setting changes, the accounts not yet set again answer a login in another time
 * than the rest, and than an unknown username (src/security/unknown-account-hash.ts). Each login
 * that matches brings its account to the configured cost, so the costs, and the times, converge.
 *
 * The new hash is made on the BCrypt worker pool after the login is answered, never delaying or
 * failing it, and written only while the stored hash is still the one compared (the store's
 * conditional write, `AccountStore.replaceHash`): a password set meanwhile, in any process, wins.
 * The security version does not move, so no token or login ends. A rehash that fails is reported
 * (never with the password) and the next login tries again. What is kept here, the accounts with a
 * rehash under way in this process, only saves repeating the work: the store decides.
 */
import type { AccountRecord, AccountStore } from '../stores/account-store.ts';
import { costOf, type PasswordHasher } from './passwords.ts';

/** Rehashes under way at once, at most; past it a login's rehash is left to its account's next login. */
const MAX_IN_FLIGHT = 16;

export interface PasswordRehashDeps {
  readonly accounts: Pick<AccountStore, 'replaceHash'>;
  readonly passwords: Pick<PasswordHasher, 'hash'>;
  /** `security.password.bcrypt-cost`. */
  readonly bcryptCost: number;
  /** A rehash that failed (the store or the pool out of reach): the login went on regardless. */
  readonly onError: (error: unknown, accountId: number) => void;
}

export interface PasswordRehash {
  /**
   * After `password` matched `account`'s stored hash: starts hashing it again at the configured
   * cost when the stored hash has another. Returns at once; never throws.
   */
  readonly afterMatch: (account: AccountRecord, password: string) => void;
  /** Resolves (never rejects) once no rehash is under way. */
  readonly settled: () => Promise<void>;
}

export function createPasswordRehash(deps: PasswordRehashDeps): PasswordRehash {
  const underWay = new Map<number, Promise<void>>();

  const rehash = async (account: AccountRecord, password: string): Promise<void> => {
    const hash = await deps.passwords.hash(password, deps.bcryptCost);
    await deps.accounts.replaceHash(account.id, account.password, hash);
  };

  return {
    afterMatch(account, password) {
      const cost = costOf(account.password);
      if (cost === undefined || cost === deps.bcryptCost) return;
      if (underWay.has(account.id) || underWay.size >= MAX_IN_FLIGHT) return;
      const work = rehash(account, password)
        .catch((error: unknown) => deps.onError(error, account.id))
        .finally(() => underWay.delete(account.id));
      underWay.set(account.id, work);
    },
    settled: async () => {
      while (underWay.size > 0) await Promise.all(underWay.values());
    },
  };
}

/**
 * The passwords this repository publishes (data/initial-data.json's accounts, the README, the
 * tests): with `NODE_ENV=production`, a start where an enabled account still has one is refused.
 */
import { ConfigError } from '../config.ts';
import type { InitialData } from './initial-data.ts';
import type { PasswordHasher } from '../security/passwords.ts';
import type { AccountStore } from '../stores/account-store.ts';

export const PUBLISHED_PASSWORDS: readonly string[] = ['admin-password', 'john-password'];

/**
 * Throws a ConfigError naming the first enabled account, among those the initial data names or
 * whose hash it holds, that still takes a published password. Only those are compared: every
 * comparison is a BCrypt run, and an account created through administration had its password
 * chosen by an administrator.
 */
export async function refuseDevelopmentAccounts(
  store: AccountStore,
  initial: InitialData,
  passwords: PasswordHasher,
): Promise<void> {
  const names = new Set(initial.users.map((u) => u.username));
  const hashes = new Set(initial.users.map((u) => u.password));
  const suspects = (await store.listAll()).filter(
    (a) => a.enabled && (names.has(a.username) || hashes.has(a.password)),
  );
  for (const account of suspects) {
    const matches = await Promise.all(PUBLISHED_PASSWORDS.map((p) => passwords.verify(p, account.password)));
    if (matches.some(Boolean))
      throw new ConfigError(
        `Refusing to start with NODE_ENV=production: account "${account.username}" still has a password published in this repository; set another (PUT /app/admin/users/{id}/password or npm run repl) or disable it`,
      );
  }
}

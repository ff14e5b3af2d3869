/**
 * One namespace of subjects. An access token's `sub` is an account's username, or for a client's
 * own token (client_credentials) the client's id; so that a resource server reading `sub` alone
 * never takes one for the other, no account is named like a registered client, compared in the
 * usernames' canonical form (`src/security/usernames.ts`). Refused on both sides, never by
 * rewriting a published claim: a registered client whose id is an account's username (in the store
 * or in the initial data) stops the start; AccountActor refuses to create an account named like a
 * registered client (`account.username_reserved`). Accounts are never renamed.
 *
 * With several processes: each refuses the creation by the clients it was configured with, and each
 * checks the store's accounts when it starts, so an account created by another process (which must
 * share the clients file) is caught by one of the two.
 */
import { ConfigError, type Config } from '../config.ts';
import type { AccountStore } from '../stores/account-store.ts';
import { registeredClients } from './clients.ts';
import { canonicalUsername } from './usernames.ts';

/** The registered clients' ids in the usernames' canonical form: the names no account may have. */
export const clientSubjects = (clients: readonly { readonly clientId: string }[]): ReadonlySet<string> =>
  new Set(clients.map((c) => canonicalUsername(c.clientId)));

/**
 * Throws a ConfigError, one line naming the client, where it is registered and the account, for the
 * first of `usernames` (found in `source`) that is a registered client's subject.
 */
export function refuseSubjectClashes(config: Config, usernames: Iterable<string>, source: string): void {
  const byCanonical = new Map(registeredClients(config).map((c) => [canonicalUsername(c.clientId), c.clientId]));
  for (const username of usernames) {
    const clientId = byCanonical.get(canonicalUsername(username));
    if (clientId === undefined) continue;
    const key = clientId === config.security.jwt.clientId ? 'security.jwt.client-id' : 'security.clients-file';
    throw new ConfigError(
      `Refusing to start: client "${clientId}" (${key}) has the subject of account "${username}" (${source}); an account and a client never share one: give the client another id, or take it out and delete the account`,
    );
  }
}

/** {@link refuseSubjectClashes} over every account of the store. */
export async function refuseClientAccounts(config: Config, store: Pick<AccountStore, 'listAll'>): Promise<void> {
  refuseSubjectClashes(
    config,
    (await store.listAll()).map((a) => a.username),
    'in the store',
  );
}

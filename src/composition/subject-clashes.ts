/**
 * The start-up check of one namespace of subjects (`src/security/subjects.ts`): no registered
 * client's id is an account's username, in the initial data or in the store, or has the form of
 * an account's subject.
 */
import { ConfigError, type Config } from '../config.ts';
import { ACCOUNT_SUBJECT_PREFIX, hasAccountSubjectForm } from '../security/subjects.ts';
import { canonicalUsername } from '../security/usernames.ts';
import type { AccountStore } from '../stores/account-store.ts';
import { registeredClients } from './clients.ts';

/** Throws a ConfigError, one line naming the client and where it is registered, for the first whose id has the form of an account's subject. */
export function refuseAccountSubjectClientIds(config: Config): void {
  const clash = registeredClients(config).find((c) => hasAccountSubjectForm(c.clientId));
  if (clash === undefined) return;
  const key = clash.clientId === config.security.jwt.clientId ? 'security.jwt.client-id' : 'security.clients-file';
  throw new ConfigError(
    `Refusing to start: client "${clash.clientId}" (${key}) has the form of an account's subject (${ACCOUNT_SUBJECT_PREFIX}<id>), the \`sub\` of accounts' tokens: give the client another id`,
  );
}

/**
 * Throws a ConfigError, one line naming the client, where it is registered and the account, for the
 * first of `usernames` (found in `source`) that is a registered client's subject; first, for a client
 * whose id has the form of an account's subject ({@link refuseAccountSubjectClientIds}).
 */
export function refuseSubjectClashes(config: Config, usernames: Iterable<string>, source: string): void {
  refuseAccountSubjectClientIds(config);
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

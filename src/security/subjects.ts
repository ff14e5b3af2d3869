/**
 * One namespace of subjects. An access token's `sub` is an account's subject, `account:<id>`
 * ({@link accountSubject}), or for a client's own token (client_credentials) the client's id. An
 * account's id is never reused (migration 014) and never changes, so a subject is one account for
 * good: a username deleted and created again is another subject. No registered client's id has the
 * form of an account's subject, so a resource server reading `sub` alone never takes one for the
 * other; nor is an account named like a registered client (its `user_name` beside `sub`), compared
 * in the usernames' canonical form (`src/security/usernames.ts`). Refused on both sides, never by
 * rewriting a published claim: a registered client whose id is an account's username (in the store
 * or in the initial data), or has the form of an account's subject, stops the start; AccountActor
 * refuses to create an account named like a registered client (`account.username_reserved`).
 * Accounts are never renamed. The start-up check is the composition root's
 * (`src/composition/subject-clashes.ts`).
 *
 * With several processes: each refuses the creation by the clients it was configured with, and each
 * checks the store's accounts when it starts, so an account created by another process (which must
 * share the clients file) is caught by one of the two.
 */
import { canonicalUsername } from './usernames.ts';

/** What every account's subject starts with; no registered client's id does, whatever its case. */
export const ACCOUNT_SUBJECT_PREFIX = 'account:';

/** The subject of the account with `accountId`: the `sub` of its tokens. */
export const accountSubject = (accountId: number): string => `${ACCOUNT_SUBJECT_PREFIX}${accountId}`;

/** Whether a client's id has the form of an account's subject (refused at start-up). */
export const hasAccountSubjectForm = (clientId: string): boolean =>
  clientId.toLowerCase().startsWith(ACCOUNT_SUBJECT_PREFIX);

/** The registered clients' ids in the usernames' canonical form: the names no account may have. */
export const clientSubjects = (clients: readonly { readonly clientId: string }[]): ReadonlySet<string> =>
  new Set(clients.map((c) => canonicalUsername(c.clientId)));

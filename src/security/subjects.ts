/**
 * One namespace of subjects. An access token's `sub` is an account's username, or for a client's
 * own token (client_credentials) the client's id; so that a resource server reading `sub` alone
 * never takes one for the other, no account is named like a registered client, compared in the
 * usernames' canonical form (`src/security/usernames.ts`). Refused on both sides, never by
 * rewriting a published claim: a registered client whose id is an account's username (in the store
 * or in the initial data) stops the start; AccountActor refuses to create an account named like a
 * registered client (`account.username_reserved`). Accounts are never renamed. The start-up
 * check is the composition root's (`src/composition/subject-clashes.ts`).
 *
 * With several processes: each refuses the creation by the clients it was configured with, and each
 * checks the store's accounts when it starts, so an account created by another process (which must
 * share the clients file) is caught by one of the two.
 */
import { canonicalUsername } from './usernames.ts';

/** The registered clients' ids in the usernames' canonical form: the names no account may have. */
export const clientSubjects = (clients: readonly { readonly clientId: string }[]): ReadonlySet<string> =>
  new Set(clients.map((c) => canonicalUsername(c.clientId)));

/**
 * An account's profile as its own access token reads it (OpenID UserInfo). Read fresh from the
 * store on every request, beside AccountActor's mailbox: an account deleted, disabled or changed
 * (its security version moved) since the token was minted gives the token nothing, whichever
 * process made the change, even where the resource server's check has not seen it yet.
 */
import type { MessageOf } from '../../src/messaging/ask.ts';
import { fail, ok } from '../../src/messaging/reply.ts';
import type { AccountStore } from '../../src/stores/account-store.ts';
import type { Command, ProfileReply } from './protocol.ts';

export function createProfiles(deps: { readonly accounts: AccountStore }) {
  const onGetProfile = async (m: MessageOf<Command, 'GetProfile'>): Promise<ProfileReply> => {
    const account = await deps.accounts.findById(m.accountId);
    if (!account?.enabled || account.securityVersion !== m.accountVersion)
      return fail('account.not_found', 'The token speaks for no enabled account at its security version');
    const { id, username, firstName, lastName, email, updatedAt } = account;
    return ok({ id, username, firstName, lastName, email, updatedAt });
  };
  return { onGetProfile };
}

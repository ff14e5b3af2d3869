/**
 * TokenActor's consents API: what an account allowed each client at the authorization endpoint,
 * and its withdrawal, which ends the account's logins of that client (their refresh tokens
 * revoked, their access tokens refused: `revokeLogin`, as when an ADMIN ends one login). A code
 * issued before the withdrawal and not yet redeemed is refused at its redemption
 * (grants/authorization-code.ts), so nothing the consent allowed outlives it. The consents are
 * read from the store each time: no copy is kept in any process, and the store settles a
 * withdrawal made twice at once (the second finds no consent).
 */
import { fail, ok } from '../../src/messaging/reply.ts';
import type { Client } from '../../src/security/clients.ts';
import type { AccountStore } from '../../src/stores/account-store.ts';
import type { ConsentRecord, ConsentStore } from '../../src/stores/consent-store.ts';
import type { RefreshTokenStore } from '../../src/stores/refresh-token-store.ts';
import type { Command, ConsentSummary, ConsentsReply, WithdrawReply } from './protocol.ts';

export interface ConsentDeps {
  readonly clients: readonly Client[];
  readonly accounts: AccountStore;
  readonly consents: ConsentStore;
  readonly refreshTokens: RefreshTokenStore;
}

type Of<T extends Command['type']> = Extract<Command, { type: T }>;

const iso = (seconds: number): string => new Date(seconds * 1000).toISOString();

export function createConsents(
  deps: ConsentDeps,
  seconds: () => number,
  revokeLogin: (loginId: string, loginExpiresAt?: number) => Promise<void>,
) {
  const view = (r: ConsentRecord): ConsentSummary => {
    const client = deps.clients.find((c) => c.clientId === r.clientId);
    return {
      clientId: r.clientId,
      clientName: client?.clientName ?? r.clientId,
      scopes: r.scopes,
      grantedAt: iso(r.grantedAt),
      updatedAt: iso(r.updatedAt),
    };
  };

  const onListConsents = async (msg: Of<'ListConsents'>): Promise<ConsentsReply> => {
    if (!(await deps.accounts.findById(msg.accountId))) return fail('account.not_found', 'No such account');
    return ok((await deps.consents.list(msg.accountId)).map(view));
  };

  const onWithdrawConsent = async (msg: Of<'WithdrawConsent'>): Promise<WithdrawReply> => {
    const account = await deps.accounts.findById(msg.accountId);
    if (!account) return fail('account.not_found', 'No such account');
    if (!(await deps.consents.withdraw(account.id, msg.clientId)))
      return fail('consent.not_found', 'The account has given this client no consent');
    // After the consent is gone: a login refreshed meanwhile is revoked with the rest.
    for (const login of await deps.refreshTokens.loginsOf(account.id, seconds()))
      if (login.clientId === msg.clientId) await revokeLogin(login.loginId, login.expiresAt);
    return ok({ username: account.username });
  };

  return { onListConsents, onWithdrawConsent };
}

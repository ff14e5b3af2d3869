/**
 * The authorization_code grant (RFC 6749 §4.1, RFC 7636): issuing a code once the account's password
 * matched at the authorization endpoint's sign-in (checked by `password-check.ts`), and redeeming
 * it at the token endpoint. A code names the login its tokens will belong to, so a code presented
 * a second time revokes that login: every access and refresh token issued from the code.
 */
import { randomUUID } from 'node:crypto';
import { tell } from '../../../src/messaging/nact.ts';
import { fail, ok } from '../../../src/messaging/reply.ts';
import {
  isCodeVerifier,
  looksLikeAuthorizationCode,
  newAuthorizationCode,
  verifierMatches,
} from '../../../src/security/pkce.ts';
import { hashToken } from '../../../src/security/refresh-tokens.ts';
import type { AuthorizationCodeRecord, AuthorizationCodeStore } from '../../../src/stores/authorization-code-store.ts';
import type { AccountStore } from '../../../src/stores/account-store.ts';
import type { Issuing } from './issuing.ts';
import { ACCOUNT_CHANGED, type Command } from '../protocol.ts';
import type { Matched } from './password-check.ts';

export interface CodeDeps {
  readonly codes: AuthorizationCodeStore;
  readonly accounts: AccountStore;
}

/** Seconds a code may wait for its redemption (RFC 6749 §4.1.2 recommends at most ten minutes). */
const CODE_VALIDITY_S = 60;

type RedeemCode = Extract<Command, { type: 'RedeemCode' }>;

export const REPLAYED = 'Authorization code already used; every token issued from it is revoked';

export function createAuthorizationCode(
  deps: CodeDeps,
  grants: Issuing,
  seconds: () => number,
  revokeLogin: (loginId: string) => Promise<void>,
  afterLogin: (accountId: number) => Promise<void>,
) {
  /** A new code for `account`, whose password matched; stored by its hash only. */
  const issue: Matched['Authorize'] = async (client, account, request) => {
    const code = newAuthorizationCode();
    await deps.codes.insert({
      codeHash: hashToken(code),
      clientId: client.clientId,
      redirectUri: request.redirectUri,
      codeChallenge: request.codeChallenge,
      scope: request.scope ?? client.scopes,
      username: account.username,
      accountId: account.id,
      accountVersion: account.securityVersion,
      loginId: randomUUID(),
      expiresAt: seconds() + CODE_VALIDITY_S,
      usedAt: null,
    });
    return ok({ code });
  };

  /** Why the spent code may not be redeemed by this request, if it may not. */
  const mismatch = (record: AuthorizationCodeRecord, msg: RedeemCode): string | undefined => {
    if (record.clientId !== msg.clientId) return 'Invalid authorization code';
    if (record.expiresAt <= seconds()) return 'Authorization code expired';
    if (record.redirectUri !== msg.redirectUri) return 'redirect_uri does not match the authorization request';
    if (!verifierMatches(msg.codeVerifier, record.codeChallenge)) return 'code_verifier does not match the challenge';
    return undefined;
  };

  const onRedeemCode = async (msg: RedeemCode): Promise<void> => {
    const refuse = (description: string) => tell(msg.sender, fail('grant.invalid', description));
    const client = grants.checkGrant(msg.clientId, 'authorization_code', undefined);
    if ('ok' in client) return tell(msg.sender, client);
    if (!looksLikeAuthorizationCode(msg.code) || !isCodeVerifier(msg.codeVerifier))
      return refuse('Invalid authorization code or code_verifier');
    // Spent whatever follows: a code is presented once, by its client or by anyone else.
    const record = await deps.codes.spend(hashToken(msg.code), seconds());
    if (!record) return refuse('Invalid authorization code');
    if (record.usedAt !== null) {
      await revokeLogin(record.loginId);
      return refuse(REPLAYED);
    }
    const wrong = mismatch(record, msg);
    if (wrong !== undefined) return refuse(wrong);
    // The account the code was issued from (by id: a username created again is another account),
    // at the version it had then: a code outlives no change that cuts access.
    const account = record.accountId === null ? undefined : await deps.accounts.findById(record.accountId);
    if (!account?.enabled || account.securityVersion !== record.accountVersion) return refuse(ACCOUNT_CHANGED);
    const granted = await grants.newLogin(client, account, record.scope, record.loginId);
    if (!granted) return refuse(ACCOUNT_CHANGED);
    await afterLogin(account.id);
    tell(msg.sender, ok(granted));
  };

  return { issue, onRedeemCode };
}

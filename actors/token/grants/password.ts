/**
 * The password grant (RFC 6749 §4.3): the account's password checked by a password login
 * (`password-login.ts`); once it matched, a new login: an access token and, for a client with the
 * refresh_token grant, the login's first refresh token.
 */
import { fail, ok } from '../../../src/messaging/reply.ts';
import { BAD_CREDENTIALS, type PasswordLoginOf } from './password-login.ts';
import type { Issuing } from './issuing.ts';
import type { GrantOf, GrantReply } from '../protocol.ts';
import type { GrantRequest } from './grant-request.ts';

/**
 * The tokens of the login whose password matched. Refused as a wrong password is when the account
 * changed since it was read (nothing of the login is stored then). `afterLogin`: runs once the
 * login's tokens are stored, before they are answered (its bounds).
 */
export const passwordGrant =
  (passwordLogin: PasswordLoginOf, issuing: Issuing, afterLogin: (accountId: number) => Promise<void>) =>
  (grant: GrantOf<'password'>, request: GrantRequest): Promise<GrantReply> =>
    passwordLogin({ ...grant, ...request }, 'password', async (client, account) => {
      const granted = await issuing.newLogin(client, account, grant.scope ?? client.scopes);
      if (!granted) return fail('grant.invalid', BAD_CREDENTIALS);
      await afterLogin(account.id);
      return ok(granted);
    });

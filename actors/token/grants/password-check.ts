/**
 * TokenActor's BCrypt pipeline, shared by the password grant (`password.ts`) and the
 * authorization endpoint's sign-in (`authorization-code.ts`): a user's password is compared on
 * the worker pool, never on the actor, and the verdict comes back to the actor as a message
 * (`pipe`), so the actor serves other messages meanwhile. (A client's secret is checked by the
 * route's guard, before any message.)
 */
import { pipe, type WorkFailed } from '../../../src/messaging/pipe.ts';
import { tell, type Ref } from '../../../src/messaging/nact.ts';
import { fail } from '../../../src/messaging/reply.ts';
import type { Client } from '../../../src/security/clients.ts';
import { overLongPassword, type PasswordHasher } from '../../../src/security/passwords.ts';
import { findAccountForLogin } from '../../../src/security/usernames.ts';
import type { CredentialStore, AccountRecord } from '../../../src/stores/credential-store.ts';
import type { Issuing } from './issuing.ts';
import type { AuthorizeReply, Command, GrantReply } from '../protocol.ts';

export interface PasswordCheckDeps {
  readonly credentials: CredentialStore;
  readonly passwords: PasswordHasher;
  /** Compared against when the user is unknown, so both failures take the same time. */
  readonly dummyHash: () => string;
}

/** A password check: the password grant's, or the authorization endpoint's sign-in. */
export type PasswordLogin = Extract<Command, { type: 'IssueToken' | 'Authorize' }>;
type Of<T extends PasswordLogin['type']> = Extract<PasswordLogin, { type: T }>;

/** What a password that matched leads to, per message kind: the password grant's tokens, the sign-in's code. */
export interface Matched {
  readonly IssueToken: (client: Client, user: AccountRecord, request: Of<'IssueToken'>) => Promise<GrantReply>;
  readonly Authorize: (client: Client, user: AccountRecord, request: Of<'Authorize'>) => Promise<AuthorizeReply>;
}

/**
 * The verdicts, and work that failed. Each carries its caller's `sender` at the top, where
 * supervision looks for it: a crash while handling one answers the caller at once instead of
 * leaving it to time out.
 */
export type Completion =
  | {
      readonly type: 'PasswordChecked';
      readonly request: PasswordLogin;
      readonly client: Client;
      readonly user: AccountRecord | undefined;
      readonly sender: PasswordLogin['sender'];
    }
  | WorkFailed;

export const BAD_CREDENTIALS = 'Bad credentials';

export function createPasswordCheck(deps: PasswordCheckDeps, issuing: Issuing, matched: Matched) {
  const onLogin = async (msg: PasswordLogin, self: Ref<Completion>): Promise<void> => {
    const client = issuing.checkGrant(
      msg.clientId,
      msg.type === 'Authorize' ? 'authorization_code' : 'password',
      msg.scope,
    );
    if ('ok' in client) return tell(msg.sender, client);
    const overLong = overLongPassword(msg.password);
    if (overLong !== undefined) return tell(msg.sender, fail('request.invalid', overLong));
    const user = await findAccountForLogin(deps.credentials, msg.username);
    pipe(
      deps.passwords.verify(msg.password, user?.password ?? deps.dummyHash()),
      self,
      (matches): Completion => ({
        type: 'PasswordChecked',
        request: msg,
        client,
        // A disabled account gets exactly the answer a wrong password gets.
        user: matches && user?.enabled ? user : undefined,
        sender: msg.sender,
      }),
      (error): Completion => ({ type: 'WorkFailed', error, sender: msg.sender }),
    );
  };

  const onPasswordChecked = async ({
    request,
    client,
    user,
  }: Extract<Completion, { type: 'PasswordChecked' }>): Promise<void> => {
    const refuse = (): void => tell(request.sender, fail('grant.invalid', BAD_CREDENTIALS));
    if (!user) return refuse();
    // The password was checked against a read made before the comparison: a change to the account
    // answered meanwhile (a new password, a demotion, a disable, a delete) refuses this login as a
    // wrong password is refused. What is minted carries the version read here, so a change
    // answered after this read refuses it too, wherever it is presented.
    const now = await deps.credentials.findById(user.id);
    if (!now?.enabled || now.securityVersion !== user.securityVersion) return refuse();
    if (request.type === 'Authorize') return tell(request.sender, await matched.Authorize(client, now, request));
    tell(request.sender, await matched.IssueToken(client, now, request));
  };

  return { onLogin, onPasswordChecked };
}

/**
 * TokenActor's BCrypt pipeline: a user's password is compared on the worker pool, never on the
 * actor, and the verdict comes back to the actor as a message (`pipe`), so the actor serves other
 * messages meanwhile. (A client's secret is checked by the route's guard, before any message.)
 */
import { pipe, type WorkFailed } from '../../src/messaging/pipe.ts';
import { tell, type Ref } from '../../src/messaging/nact.ts';
import { fail, ok } from '../../src/messaging/reply.ts';
import type { Client } from '../../src/security/clients.ts';
import { overLongPassword, type PasswordHasher } from '../../src/security/passwords.ts';
import { findAccountForLogin } from '../../src/security/usernames.ts';
import type { CredentialStore, AccountRecord } from '../../src/stores/credential-store.ts';
import type { Grants } from './grants.ts';
import type { AuthorizationCode, Command } from './protocol.ts';

export interface CredentialCheckDeps {
  readonly credentials: CredentialStore;
  readonly passwords: PasswordHasher;
  /** Compared against when the user is unknown, so both failures take the same time. */
  readonly dummyHash: () => string;
}

/** A password check: the password grant's, or the authorization endpoint's sign-in. */
type IssueToken = Extract<Command, { type: 'IssueToken' | 'Authorize' }>;

/**
 * The verdicts, and work that failed. Each carries its caller's `sender` at the top, where
 * supervision looks for it: a crash while handling one answers the caller at once instead of
 * leaving it to time out.
 */
export type Completion =
  | {
      readonly type: 'PasswordChecked';
      readonly request: IssueToken;
      readonly client: Client;
      readonly user: AccountRecord | undefined;
      readonly sender: IssueToken['sender'];
    }
  | WorkFailed;

const BAD_CREDENTIALS = 'Bad credentials';

/** `afterLogin`: runs once a login's tokens are stored, before they are answered (its bounds). */
export function createCredentialChecks(
  deps: CredentialCheckDeps,
  grants: Grants,
  afterLogin: (accountId: number) => Promise<void>,
  issueCode: (
    client: Client,
    user: AccountRecord,
    request: Extract<IssueToken, { type: 'Authorize' }>,
  ) => Promise<AuthorizationCode>,
) {
  const onIssueToken = async (msg: IssueToken, self: Ref<Completion>): Promise<void> => {
    const client = grants.checkGrant(
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
    // wrong password is refused. What is minted below carries the version read here, so a change
    // answered after this read refuses it too, wherever it is presented.
    const now = await deps.credentials.findById(user.id);
    if (!now?.enabled || now.securityVersion !== user.securityVersion) return refuse();
    if (request.type === 'Authorize') return tell(request.sender, ok(await issueCode(client, now, request)));
    const granted = await grants.newLogin(client, now, request.scope ?? client.scopes);
    if (!granted) return refuse();
    await afterLogin(now.id);
    tell(request.sender, ok(granted));
  };

  return { onIssueToken, onPasswordChecked };
}

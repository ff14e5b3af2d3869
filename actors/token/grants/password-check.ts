/**
 * TokenActor's password logins, shared by the password grant (`password.ts`) and the
 * authorization endpoint's sign-in (`authorization-code.ts`). Each is counted by the login
 * throttle before its password is looked at (a refusal is the `login.throttled` reply), its
 * password compared on the worker pool, and the attempt settled with the outcome before the
 * answer goes: succeeded on a match, failed on a wrong password, given back when the login was
 * never judged (a refused client or scope, a store out of reach, a crash). The throttle's store
 * calls and BCrypt run beside the mailbox, their results piped back as messages, so the actor
 * serves other messages meanwhile. Logins alike in flight share one count and one comparison
 * (`logins-in-flight.ts`): the first one's verdict goes to each, which goes on as its own but
 * settles no attempt (it was never counted). (A client's secret is checked by the route's guard.)
 */
import { pipe, replyBeside, type WorkFailed } from '../../../src/messaging/pipe.ts';
import { tell, type Ref } from '../../../src/messaging/nact.ts';
import { fail, type Failure } from '../../../src/messaging/reply.ts';
import type { Client } from '../../../src/security/clients.ts';
import { throttled, UNADDRESSED, type Outcome, type Throttled } from '../../../src/security/login-attempts.ts';
import type { Attempt, LoginThrottle } from '../../../src/security/login-throttle.ts';
import type { PasswordRehash } from '../../../src/security/password-rehash.ts';
import { overLongPassword, type PasswordHasher } from '../../../src/security/passwords.ts';
import { findAccountForLogin } from '../../../src/security/usernames.ts';
import type { AccountStore, AccountRecord } from '../../../src/stores/account-store.ts';
import type { Issuing } from './issuing.ts';
import { loginsInFlight } from './logins-in-flight.ts';
import type { AuthorizeReply, Command, ErrorCode, GrantReply } from '../protocol.ts';

export interface PasswordCheckDeps {
  readonly accounts: AccountStore;
  readonly passwords: PasswordHasher;
  /** Compared against when the account is unknown, so both failures take the same time. */
  readonly dummyHash: () => string;
  /** Counts password logins per username and address (src/security/login-throttle.ts). */
  readonly throttle: Pick<LoginThrottle, 'begin'>;
  /** Told of each password that matched: its hash renewed at the configured cost, beside the login. */
  readonly rehash: PasswordRehash['afterMatch'];
}

/** A password check: the password grant's, or the authorization endpoint's sign-in. */
export type PasswordLogin = Extract<Command, { type: 'IssueToken' | 'Authorize' }>;
type Of<T extends PasswordLogin['type']> = Extract<PasswordLogin, { type: T }>;

/** What a password that matched leads to, per message kind: the password grant's tokens, the sign-in's code. */
export interface Matched {
  readonly IssueToken: (client: Client, account: AccountRecord, request: Of<'IssueToken'>) => Promise<GrantReply>;
  readonly Authorize: (client: Client, account: AccountRecord, request: Of<'Authorize'>) => Promise<AuthorizeReply>;
}

/**
 * A login's steps, and work that failed. Each carries its caller's `sender` at the top, where
 * supervision looks for it: a crash while handling one answers the caller at once instead of
 * leaving it to time out.
 */
export type Completion =
  | {
      /** Counted by the throttle: its password may be checked. */
      readonly type: 'LoginAdmitted';
      readonly request: PasswordLogin;
      readonly attempt: Attempt;
      readonly sender: PasswordLogin['sender'];
    }
  | {
      readonly type: 'PasswordChecked';
      readonly request: PasswordLogin;
      readonly attempt: Attempt;
      readonly client: Client;
      readonly account: AccountRecord | undefined;
      readonly sender: PasswordLogin['sender'];
    }
  | WorkFailed;

export const BAD_CREDENTIALS = 'Bad credentials';

/** The login's outcome, read from its answer. */
const outcomeOf = (reply: GrantReply | AuthorizeReply): Outcome =>
  reply.ok ? 'succeeded' : reply.code === 'grant.invalid' ? 'failed' : 'abandoned';

/** The attempt of a login that joined another in flight: never counted, so it settles nothing. */
const NOT_COUNTED: Attempt = { failed: async () => {}, succeeded: async () => {}, abandoned: async () => {} };

/** What a login in flight came to before its own steps went on: what the logins that joined it get. */
type Verdict =
  | { readonly reply: Failure<ErrorCode> | Throttled }
  | { readonly error: unknown }
  | { readonly client: Client; readonly account: AccountRecord | undefined };

export function createPasswordCheck(deps: PasswordCheckDeps, issuing: Issuing, matched: Matched) {
  const inFlight = loginsInFlight();

  /** Hands the verdict of `leader` to the logins that joined it, if it has not been handed yet. */
  const release = (leader: PasswordLogin, verdict: Verdict, self: Ref<Completion>): void => {
    for (const request of inFlight.release(leader)) {
      const { sender } = request;
      if ('reply' in verdict) tell(sender as Ref<GrantReply | AuthorizeReply>, verdict.reply);
      else if ('error' in verdict) tell(self, { type: 'WorkFailed', error: verdict.error, sender });
      else tell(self, { type: 'PasswordChecked', request, attempt: NOT_COUNTED, ...verdict, sender });
    }
  };

  /**
   * Gives the attempt back, then hands `error` to supervision (which answers the sender): the
   * failure is piped back only once the attempt has settled, so the throttle's count is given back
   * before the caller hears of it.
   */
  function abandonThenFail(attempt: Attempt, error: unknown, request: PasswordLogin, self: Ref<Completion>) {
    release(request, { error }, self);
    const failed = (): WorkFailed => ({ type: 'WorkFailed', error, sender: request.sender });
    // An attempt that cannot be given back (the store out of reach) stays counted: it fails closed.
    pipe(attempt.abandoned(), self, failed, failed);
  }

  /** Settles the attempt with the reply's outcome, beside the mailbox, then answers with the reply. */
  function answer(request: Of<'IssueToken'>, attempt: Attempt, reply: GrantReply, self: Ref<Completion>): void;
  function answer(request: Of<'Authorize'>, attempt: Attempt, reply: AuthorizeReply, self: Ref<Completion>): void;
  function answer(request: PasswordLogin, attempt: Attempt, reply: Failure<ErrorCode>, self: Ref<Completion>): void;
  function answer(request: PasswordLogin, attempt: Attempt, reply: GrantReply | AuthorizeReply, self: Ref<Completion>) {
    if (!reply.ok) release(request, { reply }, self); // answered before its password was compared
    // The overloads pair each request's sender with its own reply.
    const sender = request.sender as Ref<GrantReply | AuthorizeReply>;
    replyBeside(
      self,
      sender,
      attempt[outcomeOf(reply)]().then(() => reply),
    );
  }

  /** Runs a step of an admitted login; if it throws, the attempt is given back before supervision answers. */
  const holding = async (
    msg: { request: PasswordLogin; attempt: Attempt },
    self: Ref<Completion>,
    step: () => Promise<void>,
  ) => {
    try {
      await step();
    } catch (error) {
      abandonThenFail(msg.attempt, error, msg.request, self);
    }
  };

  /**
   * Joins a login alike in flight, or counts the login, beside the mailbox: admitted, it comes
   * back as `LoginAdmitted`; refused, it is answered.
   */
  const onLogin = (msg: PasswordLogin, self: Ref<Completion>): void => {
    if (inFlight.join(msg)) return;
    deps.throttle.begin(msg.username, msg.address ?? UNADDRESSED).then(
      (admission) => {
        if ('attempt' in admission)
          return tell(self, { type: 'LoginAdmitted', request: msg, attempt: admission.attempt, sender: msg.sender });
        const reply = throttled(admission);
        release(msg, { reply }, self);
        tell(msg.sender, reply);
      },
      (error: unknown) => {
        release(msg, { error }, self);
        tell(self, { type: 'WorkFailed', error, sender: msg.sender });
      },
    );
  };

  const onLoginAdmitted = (msg: Extract<Completion, { type: 'LoginAdmitted' }>, self: Ref<Completion>) =>
    holding(msg, self, async () => {
      const { request, attempt } = msg;
      const grant = request.type === 'Authorize' ? 'authorization_code' : 'password';
      const client = issuing.checkGrant(request.clientId, grant, request.scope);
      if ('ok' in client) return answer(request, attempt, client, self);
      const overLong = overLongPassword(request.password);
      if (overLong !== undefined) return answer(request, attempt, fail('request.invalid', overLong), self);
      const account = await findAccountForLogin(deps.accounts, request.username);
      deps.passwords.verify(request.password, account?.password ?? deps.dummyHash()).then(
        (matches) => {
          // A disabled account gets exactly the answer a wrong password gets.
          const verdict = { client, account: matches && account?.enabled ? account : undefined };
          release(request, verdict, self);
          tell(self, { type: 'PasswordChecked', request, attempt, ...verdict, sender: request.sender });
        },
        (error: unknown) => abandonThenFail(attempt, error, request, self),
      );
    });

  const onPasswordChecked = (msg: Extract<Completion, { type: 'PasswordChecked' }>, self: Ref<Completion>) =>
    holding(msg, self, async () => {
      const { request, attempt, client, account } = msg;
      const refuse = (): void => answer(request, attempt, fail('grant.invalid', BAD_CREDENTIALS), self);
      if (!account) return refuse();
      // The password was checked against a read made before the comparison: a change to the
      // account answered meanwhile (a new password, a demotion, a disable, a delete) refuses this
      // login as a wrong password is refused. What is minted carries the version read here, so a
      // change answered after this read refuses it too, wherever it is presented.
      const now = await deps.accounts.findById(account.id);
      if (!now?.enabled || now.securityVersion !== account.securityVersion) return refuse();
      deps.rehash(account, request.password);
      if (request.type === 'Authorize')
        return answer(request, attempt, await matched.Authorize(client, now, request), self);
      answer(request, attempt, await matched.IssueToken(client, now, request), self);
    });

  return { onLogin, onLoginAdmitted, onPasswordChecked };
}

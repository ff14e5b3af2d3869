/**
 * TokenActor's password logins, shared by the password grant (`password.ts`), the
 * authorization endpoint's sign-in (`authorization-code.ts`) and the account page's sign-in (no
 * client: `../sessions.ts`), in one function that reads top to
 * bottom: logins alike in flight joined, the login counted by the throttle (a refusal is the
 * `login.throttled` reply), the client checked, the account read, the password compared on the
 * worker pool, the account read again, what the login leads to minted, and the attempt settled
 * with the outcome before the answer goes: succeeded on a match, failed on a wrong password, given
 * back when the login was never judged (a refused client or scope, a store out of reach, a crash).
 * It runs beside the mailbox, so the actor serves other messages while it waits. Logins alike in
 * flight share one count and one comparison (`logins-in-flight.ts`): the first one's judgement goes
 * to each, which goes on as its own but settles no attempt (it was never counted). (A client's
 * secret is checked by the route's guard.)
 */
import { fail, type Failure } from '../../../src/messaging/reply.ts';
import type { Client } from '../../../src/security/clients.ts';
import { throttled, UNADDRESSED, type Outcome, type Throttled } from '../../../src/security/login-attempts.ts';
import type { Attempt, LoginThrottle } from '../../../src/security/login-throttle.ts';
import type { PasswordRehash } from '../../../src/security/password-rehash.ts';
import { overLongPassword, type PasswordHasher } from '../../../src/security/passwords.ts';
import { findAccountForLogin } from '../../../src/security/usernames.ts';
import type { AccountStore, AccountRecord } from '../../../src/stores/account-store.ts';
import type { Issuing } from './issuing.ts';
import { keyOf, loginsInFlight } from './logins-in-flight.ts';
import type { ErrorCode } from '../protocol.ts';

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

/** What a password login is asked with: the password grant's, or the authorization endpoint's sign-in. */
export interface PasswordLogin {
  readonly clientId: string;
  readonly username: string;
  readonly password: string;
  /** Undefined: every scope of the client. */
  readonly scope?: readonly string[] | undefined;
  /** Where the login comes from, for the login throttle; undefined: `UNADDRESSED` (the REPL). */
  readonly address?: string | undefined;
}

export const BAD_CREDENTIALS = 'Bad credentials';

/** How a login was judged before its own steps go on: refused, or the account its password matched (if any). */
type Judged<C> = { readonly attempt: Attempt } & (
  | { readonly refused: Failure<ErrorCode> | Throttled }
  | { readonly client: C; readonly account: AccountRecord | undefined }
);

/** The login's outcome, read from its answer. */
const outcomeOf = (reply: { readonly ok: boolean; readonly code?: string }): Outcome =>
  reply.ok ? 'succeeded' : reply.code === 'grant.invalid' ? 'failed' : 'abandoned';

/** The attempt of a login refused before it was counted, or that joined another: it settles nothing. */
const NOT_COUNTED: Attempt = { failed: async () => {}, succeeded: async () => {}, abandoned: async () => {} };

/**
 * Gives the attempt back, then hands `error` on (supervision answers the sender): the throttle's
 * count is given back before the caller hears of the failure. An attempt that cannot be given back
 * (the store out of reach) stays counted: it fails closed.
 */
const givenBack = async (attempt: Attempt, error: unknown): Promise<unknown> => {
  await attempt.abandoned().then(
    () => undefined,
    () => undefined,
  );
  return error;
};

/** What a login is for, checked once it is counted: its client (or none), or the refusal. */
type Check<C> = () => { readonly client: C } | Failure<ErrorCode>;
/** What a password that matched leads to, from the account as read again after the comparison. */
type Matched<C, R> = (client: C, account: AccountRecord) => Promise<R>;

/**
 * A password login, from the first step to the answer, for a client (`C` is `Client`) or for the
 * account alone (`C` is `null`): counted, checked, the account read, the password compared on the
 * worker pool, then `matched` from the account as read again.
 */
async function passwordLoginOf<C, R extends { readonly ok: boolean }>(
  deps: PasswordCheckDeps,
  inFlight: ReturnType<typeof loginsInFlight<Judged<C>>>,
  key: string,
  login: Omit<PasswordLogin, 'clientId' | 'scope'>,
  check: Check<C>,
  matched: Matched<C, R>,
): Promise<R | Failure<ErrorCode> | Throttled> {
  const judge = async (): Promise<Judged<C>> => {
    const admission = await deps.throttle.begin(login.username, login.address ?? UNADDRESSED);
    if (!('attempt' in admission)) return { refused: throttled(admission), attempt: NOT_COUNTED };
    const { attempt } = admission;
    try {
      const checked = check();
      if (!('client' in checked)) return { refused: checked, attempt };
      const overLong = overLongPassword(login.password);
      if (overLong !== undefined) return { refused: fail('request.invalid', overLong), attempt };
      const account = await findAccountForLogin(deps.accounts, login.username);
      const matches = await deps.passwords.verify(login.password, account?.password ?? deps.dummyHash());
      // A disabled account gets exactly the answer a wrong password gets.
      return { client: checked.client, account: matches && account?.enabled ? account : undefined, attempt };
    } catch (error) {
      throw await givenBack(attempt, error);
    }
  };
  const { judged, led } = await inFlight.share(key, judge);
  const attempt = led ? judged.attempt : NOT_COUNTED;
  if ('refused' in judged) {
    await attempt[outcomeOf(judged.refused)]();
    return judged.refused;
  }
  let reply: R | Failure<ErrorCode> = fail('grant.invalid', BAD_CREDENTIALS);
  try {
    // The password was checked against a read made before the comparison: a change to the
    // account answered meanwhile (a new password, a demotion, a disable, a delete) refuses this
    // login as a wrong password is refused. What is minted carries the version read here, so a
    // change answered after this read refuses it too, wherever it is presented.
    const now = judged.account && (await deps.accounts.findById(judged.account.id));
    if (judged.account && now?.enabled && now.securityVersion === judged.account.securityVersion) {
      deps.rehash(judged.account, login.password);
      reply = await matched(judged.client, now);
    }
  } catch (error) {
    throw await givenBack(attempt, error);
  }
  await attempt[outcomeOf(reply)]();
  return reply;
}

export function createPasswordLogin(deps: PasswordCheckDeps, issuing: Issuing) {
  const inFlight = loginsInFlight<Judged<Client>>();

  /**
   * A password login of a client, from the first step to the answer: `matched` makes what a
   * password that matched leads to (the password grant's tokens, the sign-in's code).
   */
  return function passwordLogin<R extends { readonly ok: boolean }>(
    login: PasswordLogin,
    grant: 'password' | 'authorization_code',
    matched: Matched<Client, R>,
  ): Promise<R | Failure<ErrorCode> | Throttled> {
    const check: Check<Client> = () => {
      const client = issuing.checkGrant(login.clientId, grant, login.scope);
      return 'ok' in client ? client : { client };
    };
    return passwordLoginOf(deps, inFlight, keyOf(grant, login), login, check, matched);
  };
}

/** What the account's own sign-in is asked with: no client, no scope. */
export type AccountLogin = Omit<PasswordLogin, 'clientId' | 'scope'>;

/**
 * The account's own sign-in (its account page): a password login as a client's, counted by the
 * same throttle and compared alike, for no client: `matched` makes what it leads to (a session).
 */
export function createAccountLogin(deps: PasswordCheckDeps) {
  const inFlight = loginsInFlight<Judged<null>>();
  return <R extends { readonly ok: boolean }>(
    login: AccountLogin,
    matched: (account: AccountRecord) => Promise<R>,
  ): Promise<R | Failure<ErrorCode> | Throttled> =>
    passwordLoginOf(
      deps,
      inFlight,
      keyOf('account', { ...login, clientId: '' }),
      login,
      () => ({ client: null }),
      (_, account) => matched(account),
    );
}

export type PasswordLoginOf = ReturnType<typeof createPasswordLogin>;
export type AccountLoginOf = ReturnType<typeof createAccountLogin>;

/**
 * The authorization_code grant (RFC 6749 §4.1, RFC 7636): issuing a code once the account's password
 * matched at the authorization endpoint's sign-in (a password login: `password-login.ts`), and redeeming
 * it at the token endpoint. A code names the login its tokens will belong to, so a code presented
 * a second time revokes that login: every access and refresh token issued from the code.
 *
 * A client that asks consent (`explicit`, the default) gets a code only for scopes the account
 * allowed it, and for `prompt=consent` (`askConsent`) not even then: the sign-in answers
 * `ConsentNeeded` otherwise, and `AuthorizeConsented` records the person's consent and issues the
 * code (`DenyConsent` records nothing). Either spends the consent page's ticket in the store, in
 * one atomic step: a page decides once, whichever process its form is posted to, and a form posted
 * again (after a withdrawal too) is refused, not granted anew. The consents are read from the
 * store each time (no copy here), so a withdrawal through any process is seen by the next sign-in
 * and redemption.
 */
import { randomUUID } from 'node:crypto';
import { fail, ok, type Failure } from '../../../src/messaging/reply.ts';
import {
  isCodeVerifier,
  looksLikeAuthorizationCode,
  mayOmitChallenge,
  newAuthorizationCode,
  PKCE_REQUIRED,
  verifierMatches,
} from '../../../src/security/pkce.ts';
import { hashToken } from '../../../src/security/refresh-tokens.ts';
import type { AuthorizationCodeRecord, AuthorizationCodeStore } from '../../../src/stores/authorization-code-store.ts';
import type { AccountRecord, AccountStore } from '../../../src/stores/account-store.ts';
import type { ConsentStore } from '../../../src/stores/consent-store.ts';
import type { ConsentTicketStore } from '../../../src/stores/consent-ticket-store.ts';
import type { Client } from '../../../src/security/clients.ts';
import type { Sessions } from '../../../src/security/sign-in-sessions.ts';
import { accountSubject } from '../../../src/security/subjects.ts';
import type { Issuing } from './issuing.ts';
import {
  ACCOUNT_CHANGED,
  type AuthorizationCode,
  type AuthorizeReply,
  type CodeTerms,
  type Command,
  type ConsentedReply,
  type ConsentNeeded,
  type DenyReply,
  type ErrorCode,
  type GrantOf,
  type GrantReply,
  type SignedInReply,
} from '../protocol.ts';
import type { GrantRequest } from './grant-request.ts';
import type { PasswordLoginOf } from './password-login.ts';

export interface CodeDeps {
  readonly codes: AuthorizationCodeStore;
  readonly accounts: AccountStore;
  readonly consents: ConsentStore;
  readonly tickets: ConsentTicketStore;
  /** The sign-in sessions a password that matched begins, and that authorize without one. */
  readonly sessions: Sessions;
}

/** Seconds a code may wait for its redemption (RFC 6749 §4.1.2 recommends at most ten minutes). */
const CODE_VALIDITY_S = 60;

type RedeemCode = GrantOf<'authorization_code'> & GrantRequest;
type SignIn = Extract<Command, { type: 'Authorize' }>;
type SessionSignIn = Extract<Command, { type: 'AuthorizeSignedIn' }>;
type Consented = Extract<Command, { type: 'AuthorizeConsented' }>;
type Denied = Extract<Command, { type: 'DenyConsent' }>;
type CodeRequest = Omit<CodeTerms, 'clientId'>;

/** The description of `grant.invalid` for a code whose consent was withdrawn before its redemption. */
export const WITHDRAWN = 'The account withdrew its consent to this client';

/** The description of `consent.ticket_spent`. */
export const TICKET_SPENT = 'The consent page was answered already';

export const REPLAYED = 'Authorization code already used; every token issued from it is revoked';

export function createAuthorizationCode(
  deps: CodeDeps,
  grants: Issuing,
  passwordLogin: PasswordLoginOf,
  seconds: () => number,
  revokeLogin: (loginId: string) => Promise<void>,
  afterLogin: (accountId: number) => Promise<void>,
) {
  /** Those of `scopes` the account has allowed the client (all of them for a first-party client). */
  const allowed = async (client: Client, accountId: number, scopes: readonly string[]) => {
    if (client.consent === 'implicit') return scopes;
    const given = (await deps.consents.find(accountId, client.clientId))?.scopes ?? [];
    return scopes.filter((s) => given.includes(s));
  };

  /** A new code for `account`, whose password was checked at `authTime`; stored by its hash only. */
  const newCode = async (
    client: Client,
    account: AccountRecord,
    request: CodeRequest,
    authTime: number,
  ): Promise<AuthorizationCode> => {
    const code = newAuthorizationCode();
    await deps.codes.insert({
      codeHash: hashToken(code),
      clientId: client.clientId,
      redirectUri: request.redirectUri,
      codeChallenge: request.codeChallenge ?? null,
      scope: request.scope ?? client.scopes,
      username: account.username,
      accountId: account.id,
      accountVersion: account.securityVersion,
      loginId: randomUUID(),
      nonce: request.nonce ?? null,
      authTime,
      expiresAt: seconds() + CODE_VALIDITY_S,
      usedAt: null,
    });
    return { code };
  };

  /**
   * The refusal of a code asked without a PKCE challenge by a client that may not leave it out
   * (`mayOmitChallenge`), before anything is counted or read; undefined when the request may go on.
   */
  const challengeRefused = (terms: CodeTerms): Failure<ErrorCode> | undefined => {
    if (terms.codeChallenge !== undefined) return undefined;
    const client = grants.checkGrant(terms.clientId, 'authorization_code', terms.scope);
    if ('ok' in client) return client;
    return mayOmitChallenge(client, terms.scope, terms.nonce) ? undefined : fail('request.invalid', PKCE_REQUIRED);
  };

  /**
   * After a password that matched at `authTime` (the code's `auth_time`): the code, or the consent
   * the person must give first, whose ticket carries that time to the code.
   */
  const issue = async (
    client: Client,
    account: AccountRecord,
    request: CodeRequest,
    authTime: number,
  ): Promise<AuthorizationCode | ConsentNeeded> => {
    const scopes = request.scope ?? client.scopes;
    const granted = await allowed(client, account.id, scopes);
    const asked = request.askConsent === true && client.consent !== 'implicit';
    if (granted.length === scopes.length && !asked) return newCode(client, account, request, authTime);
    const { id: accountId, securityVersion: accountVersion, username } = account;
    return { consent: { accountId, accountVersion, username, authTime, scopes, granted } };
  };

  /**
   * The authorization endpoint's sign-in: a password login, then the code or the consent asked. A
   * password that matched begins a sign-in session (and ends the browser's earlier one).
   */
  const onAuthorize = async (msg: SignIn): Promise<AuthorizeReply> =>
    challengeRefused(msg) ??
    passwordLogin(msg, 'authorization_code', async (client, account) => {
      const authTime = seconds();
      const answer = await issue(client, account, msg, authTime);
      const session = await deps.sessions.start(account, authTime);
      if (msg.replacing !== undefined) await deps.sessions.end(msg.replacing);
      return ok({ ...answer, session });
    });

  /**
   * An authorization through the browser's sign-in session, for its account as read now: as after
   * a password, at the session's `auth_time`; the password is asked for when the session does not
   * count, is older than `max_age`, or is of another account than the `id_token_hint`'s.
   */
  const onAuthorizeSignedIn = async (msg: SessionSignIn): Promise<SignedInReply> => {
    const refused = challengeRefused(msg);
    if (refused) return refused;
    const client = grants.checkGrant(msg.clientId, 'authorization_code', msg.scope);
    if ('ok' in client) return client;
    const required = ok({ signIn: 'required' } as const);
    const signedIn = await deps.sessions.current(msg.session);
    if (!signedIn) return required;
    const { session, account } = signedIn;
    if (msg.maxAge !== undefined && seconds() - session.authTime >= msg.maxAge) return required;
    if (msg.subject !== undefined && msg.subject !== accountSubject(account.id)) return required;
    return ok(await issue(client, account, msg, session.authTime));
  };

  /**
   * The person allowed the client: recorded, then a code as after the password, for the account as
   * it was then. The store settles a page posted twice: the ticket is spent in one atomic step.
   */
  const onAuthorizeConsented = async (msg: Consented): Promise<ConsentedReply> => {
    const refuse = () => fail('grant.invalid', ACCOUNT_CHANGED);
    const refused = challengeRefused(msg);
    if (refused) return refused;
    const client = grants.checkGrant(msg.clientId, 'authorization_code', msg.scope);
    if ('ok' in client) return client;
    const account = await deps.accounts.findById(msg.accountId);
    if (!account?.enabled || account.securityVersion !== msg.accountVersion) return refuse();
    if (!(await deps.tickets.spend(msg.ticket.id, msg.ticket.expiresAt)))
      return fail('consent.ticket_spent', TICKET_SPENT);
    if (!(await deps.consents.grant(account.id, client.clientId, msg.scope ?? client.scopes, seconds())))
      return refuse();
    const { code } = await newCode(client, account, msg, msg.authTime);
    return ok({ code, username: account.username });
  };

  /** The person denied the client: nothing recorded, but the page's ticket is spent all the same. */
  const onDenyConsent = async (msg: Denied): Promise<DenyReply> => {
    const spent = await deps.tickets.spend(msg.ticket.id, msg.ticket.expiresAt);
    return spent ? ok(null) : fail('consent.ticket_spent', TICKET_SPENT);
  };

  /** Why the spent code may not be redeemed by this request, if it may not. */
  const mismatch = (record: AuthorizationCodeRecord, msg: RedeemCode): string | undefined => {
    if (record.clientId !== msg.clientId) return 'Invalid authorization code';
    if (record.expiresAt <= seconds()) return 'Authorization code expired';
    if (record.redirectUri !== msg.redirectUri) return 'redirect_uri does not match the authorization request';
    // A code issued without a challenge takes no verifier: one sent is a PKCE downgrade (RFC 9700 §4.8.2).
    if (record.codeChallenge === null)
      return msg.codeVerifier === undefined ? undefined : 'code_verifier sent for a code issued without a challenge';
    if (msg.codeVerifier === undefined) return 'Missing code_verifier: the code was issued with a challenge';
    if (!verifierMatches(msg.codeVerifier, record.codeChallenge)) return 'code_verifier does not match the challenge';
    return undefined;
  };

  /** The grant: the code is spent in the store before anything else, so a code is redeemed once. */
  const authorizationCodeGrant = async (
    grant: GrantOf<'authorization_code'>,
    request: GrantRequest,
  ): Promise<GrantReply> => {
    const msg: RedeemCode = { ...grant, ...request };
    const refuse = (description: string) => fail('grant.invalid', description);
    const client = grants.checkGrant(msg.clientId, 'authorization_code', undefined);
    if ('ok' in client) return client;
    if (!looksLikeAuthorizationCode(msg.code) || (msg.codeVerifier !== undefined && !isCodeVerifier(msg.codeVerifier)))
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
    // A consent withdrawn while the code waited takes the code with it.
    if ((await allowed(client, account.id, record.scope)).length !== record.scope.length) return refuse(WITHDRAWN);
    const authentication = record.authTime === null ? undefined : { authTime: record.authTime, nonce: record.nonce };
    const granted = await grants.newLogin(client, account, record.scope, record.loginId, authentication);
    if (!granted) return refuse(ACCOUNT_CHANGED);
    // A withdrawal that read the logins before this one was written did not see it: the consent is
    // read again now that the login exists, and a login it no longer allows is ended at once.
    if ((await allowed(client, account.id, record.scope)).length !== record.scope.length) {
      await revokeLogin(record.loginId);
      return refuse(WITHDRAWN);
    }
    await afterLogin(account.id);
    return ok(granted);
  };

  return { onAuthorize, onAuthorizeSignedIn, onAuthorizeConsented, onDenyConsent, authorizationCodeGrant };
}

/**
 * TokenActor's messages of the authorization endpoint: the sign-in, the consent step, and the
 * sign-in sessions that let a person authorize again without the password. Build them with these
 * functions and send them with `ask` (`Token.authorize(…)` in the REPL, as every builder).
 */
import type { RequestOf } from '../../src/messaging/ask.ts';
import type { Ref } from '../../src/messaging/nact.ts';
import type { CodeTerms, Command, ConsentTicket } from './protocol.ts';
import type {
  EndSessionReply,
  EndSessionsReply,
  GetSessionReply,
  SessionsReply,
  SignInReply,
  SignOutReply,
} from './replies.ts';

/** What a sign-in form sends, as `Authorize` and `SignIn` carry it. */
export interface Credentials {
  readonly username: string;
  readonly password: string;
  /** Where the sign-in comes from, for the login throttle; undefined: `UNADDRESSED` (the REPL). */
  readonly address?: string | undefined;
  /** The cookie of the browser's earlier session, if any: ended when this sign-in begins one. */
  readonly replacing?: string | undefined;
}

/** The {@link Credentials} of `p`, and nothing else of it. */
const credentials = (p: Credentials): Credentials => ({
  username: p.username,
  password: p.password,
  address: p.address,
  replacing: p.replacing,
});

/** What an authorization asks a code for, as its builders take it: {@link CodeTerms}, the scope optional. */
type CodeRequest = Omit<CodeTerms, 'scope'> & { readonly scope?: readonly string[] | undefined };

/** The commands of the sign-in sessions apart from an authorization: part of {@link Command}. */
export type SessionCommand =
  | (Credentials & { readonly type: 'SignIn'; readonly sender: Ref<SignInReply> })
  | { readonly type: 'GetSession'; readonly session: string; readonly sender: Ref<GetSessionReply> }
  | { readonly type: 'EndSession'; readonly session: string; readonly sender: Ref<EndSessionReply> }
  | {
      readonly type: 'SignOut';
      /** The browser's session cookie. */
      readonly session: string;
      /** The subject an `id_token_hint` names: a session of another account is left going. */
      readonly subject?: string | undefined;
      readonly sender: Ref<SignOutReply>;
    }
  | { readonly type: 'ListSessions'; readonly accountId: number; readonly sender: Ref<SessionsReply> }
  | { readonly type: 'EndSessions'; readonly accountId: number; readonly sender: Ref<EndSessionsReply> };

/**
 * The authorization endpoint's sign-in: checks the password as the password grant does (throttled
 * alike), and answers a single-use code bound to the client, redirect URI, PKCE challenge and scope.
 * A password that matched begins a sign-in session (its cookie's value is in the reply), and ends
 * the one `replacing` names.
 */
export const authorize =
  (p: CodeRequest & Credentials): RequestOf<Command, 'Authorize'> =>
  (sender) => ({
    type: 'Authorize',
    clientId: p.clientId,
    redirectUri: p.redirectUri,
    scope: p.scope,
    codeChallenge: p.codeChallenge,
    nonce: p.nonce,
    askConsent: p.askConsent,
    ...credentials(p),
    sender,
  });

/**
 * The consent step after a sign-in answered {@link ConsentNeeded}: records that the account allows
 * the client the scopes, and answers a code as `Authorize` does. No password: refused
 * (`grant.invalid`) when the account is gone, disabled or at another security version, and
 * (`consent.ticket_spent`) when the page's ticket was decided with before.
 */
export const authorizeConsented =
  (
    p: CodeRequest & { accountId: number; accountVersion: number; authTime: number; ticket: ConsentTicket },
  ): RequestOf<Command, 'AuthorizeConsented'> =>
  (sender) => ({ type: 'AuthorizeConsented', ...p, scope: p.scope, sender });

/** The consent page's Deny: records nothing, and spends its ticket (`consent.ticket_spent` when it was). */
export const denyConsent =
  (p: { ticket: ConsentTicket }): RequestOf<Command, 'DenyConsent'> =>
  (sender) => ({ type: 'DenyConsent', ticket: p.ticket, sender });

/**
 * An authorization through the browser's sign-in session: as `Authorize` after a password that
 * matched (the code, or the consent asked first), for the session's account, with the time of its
 * sign-in as the code's `auth_time`; `{ signIn: 'required' }` when the session is none, ended,
 * expired, older than `maxAge`, of an account changed since, or of another subject than the hint's.
 */
export const authorizeSignedIn =
  (
    p: CodeRequest & { session: string; maxAge?: number | undefined; subject?: string | undefined },
  ): RequestOf<Command, 'AuthorizeSignedIn'> =>
  (sender) => ({ type: 'AuthorizeSignedIn', ...p, scope: p.scope, sender });

/**
 * The account page's sign-in: checks the password as `Authorize` does (throttled alike), for no
 * client, and begins a sign-in session (ending the one `replacing` names). No code, no consent.
 */
export const signIn =
  (p: Credentials): RequestOf<Command, 'SignIn'> =>
  (sender) => ({ type: 'SignIn', ...credentials(p), sender });

/** The account the browser's session cookie signs in now, read from the store; null when none counts. */
export const getSession =
  (p: { session: string }): RequestOf<Command, 'GetSession'> =>
  (sender) => ({ type: 'GetSession', session: p.session, sender });

/** Signs out: ends the session the cookie's value names (in every process). */
export const endSession =
  (p: { session: string }): RequestOf<Command, 'EndSession'> =>
  (sender) => ({ type: 'EndSession', session: p.session, sender });

/**
 * RP-initiated logout: ends the session the cookie's value names (in every process), with its
 * account as read now; when `subject` (an id_token_hint's) is given, only a session of that
 * account, another's being left going.
 */
export const signOut =
  (p: { session: string; subject?: string | undefined }): RequestOf<Command, 'SignOut'> =>
  (sender) => ({ type: 'SignOut', session: p.session, subject: p.subject, sender });

/** The account's sign-in sessions that are going (never their cookies). */
export const listSessions =
  (p: { accountId: number }): RequestOf<Command, 'ListSessions'> =>
  (sender) => ({ type: 'ListSessions', accountId: p.accountId, sender });

/** Signs the account out everywhere: ends every session of it. */
export const endSessions =
  (p: { accountId: number }): RequestOf<Command, 'EndSessions'> =>
  (sender) => ({ type: 'EndSessions', accountId: p.accountId, sender });

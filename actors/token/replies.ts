/** TokenActor's larger reply values, apart from its protocol (which exports them). */
import type { Reply } from '../../src/messaging/reply.ts';
import type { RegisteredGrant } from '../../src/security/client-registry.ts';
import type { Throttled } from '../../src/security/login-attempts.ts';

export type ErrorCode =
  | 'client.invalid' // unknown client or wrong secret
  | 'grant.invalid' // bad account credentials; unknown, expired, revoked or reused refresh token
  | 'request.invalid' // a password over 72 bytes (BCrypt would truncate it); a code asked without the PKCE it needs
  | 'grant.unauthorized' // the grant type is not enabled for the client
  | 'scope.invalid' // a scope the client (or the refresh token) does not have
  | 'client.mismatch'; // the token was issued to another client

export interface ClientView {
  readonly clientId: string;
  readonly grantTypes: readonly RegisteredGrant[];
  readonly scopes: readonly string[];
}

export interface TokenGrant {
  readonly accessToken: string;
  readonly tokenType: 'Bearer';
  /** Absent when the client may not use the refresh_token grant. */
  readonly refreshToken: string | undefined;
  /** Seconds until the access token expires. */
  readonly expiresIn: number;
  readonly scope: readonly string[];
  readonly jti: string;
  /**
   * OpenID Connect: the id_token of a login begun at the authorization endpoint with `openid` in
   * its scope (a redeemed code, a refresh of such a login); absent for every other grant.
   */
  readonly idToken?: string | undefined;
}

/** RFC 7662 introspection, in this project's casing; HTTP writes the wire names. */
export type Introspection =
  | { readonly active: false }
  | {
      readonly active: true;
      readonly tokenType: 'access_token' | 'refresh_token';
      readonly scope: readonly string[];
      readonly clientId: string;
      /** The account's username; for a client_credentials token, the client's id. */
      readonly username: string;
      /** The token's `sub`: the account's subject (`account:<id>`), or the client's id. */
      readonly subject: string;
      /** A client_credentials token: its subject is the client, not an account. */
      readonly clientToken: boolean;
      readonly exp: number;
      readonly iat: number;
      /** Access tokens only. */
      readonly jti: string | undefined;
    };

/**
 * The password matched, but the account has not allowed the client every scope asked: no code
 * until the person consents (`AuthorizeConsented`, with the account's id and version read here).
 */
export interface ConsentNeeded {
  readonly consent: {
    readonly accountId: number;
    readonly accountVersion: number;
    readonly username: string;
    /** When the password matched (epoch seconds): the `auth_time` of the code the consent leads to. */
    readonly authTime: number;
    /** The scopes asked (every scope of the client when none was). */
    readonly scopes: readonly string[];
    /** Those of {@link scopes} the account had allowed the client before. */
    readonly granted: readonly string[];
  };
}

/** A consent as its account (or an ADMIN) sees it; times are ISO 8601. */
export interface ConsentSummary {
  readonly clientId: string;
  /** The client's name, or its id (also for a client no longer registered). */
  readonly clientName: string;
  readonly scopes: readonly string[];
  readonly grantedAt: string;
  readonly updatedAt: string;
}

/** The consents API's refusals (problem details, not OAuth errors). */
export type ConsentErrorCode =
  | 'account.not_found' // no account of that id
  | 'consent.not_found'; // the account has not allowed that client anything
export type ConsentsReply = Reply<readonly ConsentSummary[], 'account.not_found'>;
/** A withdrawal, with the username of the account. */
export type WithdrawReply = Reply<{ readonly username: string }, ConsentErrorCode>;

/** An authorization code for the client to redeem at the token endpoint. */
export interface AuthorizationCode {
  readonly code: string;
}

/** A sign-in session begun: the value of the browser's cookie, and when the session ends (epoch seconds). */
export interface StartedSession {
  readonly value: string;
  readonly expiresAt: number;
}

/**
 * A password login (the password grant, `Authorize`) past the login throttle's limits is
 * {@link Throttled}. A sign-in whose password matched begins a session, whatever follows it.
 */
export type AuthorizeReply =
  Reply<(AuthorizationCode | ConsentNeeded) & { readonly session: StartedSession }, ErrorCode> | Throttled;

/** The session cannot sign the person in here: none, too old for `max_age`, or another account than the hint's. */
export interface SignInRequired {
  readonly signIn: 'required';
}
/** An authorization through a sign-in session: as after a password, or the password asked first. */
export type SignedInReply = Reply<AuthorizationCode | ConsentNeeded | SignInRequired, ErrorCode>;

/** The account page's sign-in: the session begun, and the username of its account. */
export type SignInReply = Reply<{ readonly session: StartedSession; readonly username: string }, ErrorCode> | Throttled;
/** The account a session cookie signs in now, or null when it names no session that counts. */
export type GetSessionReply = Reply<{ readonly accountId: number; readonly username: string } | null>;

/** A session as the REPL and the account see it: never its cookie or hash; times are epoch seconds. */
export interface SessionSummary {
  readonly authTime: number;
  readonly createdAt: number;
  readonly expiresAt: number;
}
export type SessionsReply = Reply<readonly SessionSummary[]>;
/** A sign-out: the account whose session it was, or null when the cookie named no session going. */
export type EndSessionReply = Reply<{ readonly accountId: number } | null>;
/**
 * An RP-initiated logout: the session it ended (whose account), null when the cookie named no
 * session that counts, or `otherAccount` when the session is of another account than the hint's
 * (left going: the person is asked first).
 */
export type SignedOut =
  | { readonly ended: { readonly accountId: number; readonly username: string } | null }
  | { readonly otherAccount: true };
export type SignOutReply = Reply<SignedOut>;
/** How many of the account's sessions were going, and are ended now. */
export type EndSessionsReply = Reply<{ readonly ended: number }>;
/**
 * The consent page's ticket a decision is made with: its id and when it expires (epoch seconds).
 * The first decision, Allow or Deny, spends it; another with the same ticket is refused.
 */
export interface ConsentTicket {
  readonly id: string;
  readonly expiresAt: number;
}

/** A decision made with a consent ticket already spent: the page's form is expired. */
export type TicketErrorCode = 'consent.ticket_spent';

/** A consent's code, with the username of the account that gave it. */
export type ConsentedReply = Reply<AuthorizationCode & { readonly username: string }, ErrorCode | TicketErrorCode>;
/** A Deny: nothing recorded, the ticket spent. */
export type DenyReply = Reply<null, TicketErrorCode>;
export type RevokeReply = Reply<null, 'client.mismatch'>;
export type IntrospectReply = Reply<Introspection>;
export type GrantReply = Reply<TokenGrant, ErrorCode> | Throttled;

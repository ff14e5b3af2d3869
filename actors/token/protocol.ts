/**
 * TokenActor: the authorization server — the grants, authorization codes, revocation and
 * introspection, over the registered clients, the refresh tokens and the signing keys (accounts
 * are AccountActor's: actors/accounts). Build messages with the functions below and send them with `ask`.
 */
import { z } from 'zod';
import type { MessageExamples, MessageSchemas } from '../../src/fields.ts';
import type { RequestOf } from '../../src/messaging/ask.ts';
import type { Ref } from '../../src/messaging/nact.ts';
import type {
  AuthorizeReply,
  ConsentedReply,
  ConsentsReply,
  ConsentTicket,
  DenyReply,
  GrantReply,
  IntrospectReply,
  RevokeReply,
  SignedInReply,
  WithdrawReply,
} from './replies.ts';
import type { Grant } from './grant-inputs.ts';

export type * from './replies.ts';
export type * from './grant-inputs.ts';
export * from './sign-in-messages.ts';
import type { Credentials, SessionCommand } from './sign-in-messages.ts';

/** The description of `grant.invalid` for a refresh token presented again (its whole login is revoked then). */
export const REUSED_REFRESH_TOKEN = 'Refresh token already used; every token of this login is revoked';

/**
 * The description of `grant.invalid` for a code or a refresh token whose account was deleted or
 * disabled, or changed since in a way that ends its logins (a new password, every login ended).
 */
export const ACCOUNT_CHANGED = 'The account no longer exists or is disabled, or its logins were ended';

/**
 * What a code is issued for: the authorization request as checked, alike in `Authorize` (the
 * sign-in) and `AuthorizeConsented` (the consent step after it).
 */
export interface CodeTerms {
  readonly clientId: string;
  /** Already matched exactly against the client's registered ones. */
  readonly redirectUri: string;
  /** Undefined: every scope of the client. */
  readonly scope: readonly string[] | undefined;
  /**
   * PKCE S256 challenge. Undefined only for a client registered with `pkce_required: false`, in an
   * OpenID request with a nonce (`mayOmitChallenge`); otherwise refused (`request.invalid`).
   */
  readonly codeChallenge?: string | undefined;
  /** OpenID Connect: the request's `nonce`, which the code's id_token carries; undefined when none was sent. */
  readonly nonce?: string | undefined;
  /**
   * OpenID Connect's `prompt=consent`: a client that asks consent shows its page even when the
   * account allowed every scope asked before (a first-party client still asks nothing).
   */
  readonly askConsent?: boolean | undefined;
}

export type Command =
  | {
      /** The token endpoint's one message: whichever grant type, answered with tokens. */
      readonly type: 'Grant';
      readonly clientId: string;
      readonly grant: Grant;
      /** Where the request comes from, for the login throttle; undefined: `UNADDRESSED` (the REPL). */
      readonly address?: string | undefined;
      readonly sender: Ref<GrantReply>;
    }
  | (CodeTerms & Credentials & { readonly type: 'Authorize'; readonly sender: Ref<AuthorizeReply> })
  | (CodeTerms & {
      readonly type: 'AuthorizeSignedIn';
      /** The browser's session cookie. */
      readonly session: string;
      /** OpenID `max_age`: the password is asked again once this many seconds have passed since it was checked. */
      readonly maxAge?: number | undefined;
      /** The subject an `id_token_hint` names: a session of another account signs no one in. */
      readonly subject?: string | undefined;
      readonly sender: Ref<SignedInReply>;
    })
  | (CodeTerms & {
      readonly type: 'AuthorizeConsented';
      /** The account whose password matched, at the security version it had then. */
      readonly accountId: number;
      readonly accountVersion: number;
      /** When its password matched at the sign-in (epoch seconds), as the consent ticket carries it. */
      readonly authTime: number;
      readonly ticket: ConsentTicket;
      readonly sender: Ref<ConsentedReply>;
    })
  | { readonly type: 'DenyConsent'; readonly ticket: ConsentTicket; readonly sender: Ref<DenyReply> }
  | { readonly type: 'ListConsents'; readonly accountId: number; readonly sender: Ref<ConsentsReply> }
  | {
      readonly type: 'WithdrawConsent';
      readonly accountId: number;
      readonly clientId: string;
      readonly sender: Ref<WithdrawReply>;
    }
  | SessionCommand
  | { readonly type: 'Revoke'; readonly clientId: string; readonly token: string; readonly sender: Ref<RevokeReply> }
  | {
      readonly type: 'Introspect';
      readonly clientId: string;
      readonly token: string;
      readonly sender: Ref<IntrospectReply>;
    };

/** The token endpoint's grant of any type, for an already authenticated client. */
export const grant =
  (p: { clientId: string; grant: Grant; address?: string | undefined }): RequestOf<Command, 'Grant'> =>
  (sender) => ({ type: 'Grant', clientId: p.clientId, grant: p.grant, address: p.address, sender });

/**
 * Password grant for an already authenticated client. Counted by the login throttle before the
 * password is checked, as a login from `address` (the client's; none from the REPL).
 */
export const issueToken = (p: {
  clientId: string;
  username: string;
  password: string;
  scope?: readonly string[] | undefined;
  address?: string | undefined;
}): RequestOf<Command, 'Grant'> =>
  grant({
    clientId: p.clientId,
    grant: { grantType: 'password', username: p.username, password: p.password, scope: p.scope },
    address: p.address,
  });

/** Refresh-token grant: rotates the token; a token presented twice revokes its whole login. */
export const refresh = (p: {
  clientId: string;
  refreshToken: string;
  scope?: readonly string[] | undefined;
}): RequestOf<Command, 'Grant'> =>
  grant({ clientId: p.clientId, grant: { grantType: 'refresh_token', refreshToken: p.refreshToken, scope: p.scope } });

/** client_credentials grant for an already authenticated client: a token of the client itself, no refresh token, no roles. */
export const clientCredentials = (p: { clientId: string; scope?: readonly string[] | undefined }) =>
  grant({ clientId: p.clientId, grant: { grantType: 'client_credentials', scope: p.scope } });

/**
 * authorization_code grant: redeems a code once; a code presented again revokes every token issued
 * from it. The verifier goes with a code issued with a challenge, and never with one issued without.
 */
export const redeemCode = (p: {
  clientId: string;
  code: string;
  redirectUri: string;
  codeVerifier?: string | undefined;
}): RequestOf<Command, 'Grant'> =>
  grant({
    clientId: p.clientId,
    grant: { grantType: 'authorization_code', code: p.code, redirectUri: p.redirectUri, codeVerifier: p.codeVerifier },
  });

/** What the account allowed each client at the authorization endpoint. */
export const listConsents =
  (p: { accountId: number }): RequestOf<Command, 'ListConsents'> =>
  (sender) => ({ type: 'ListConsents', accountId: p.accountId, sender });

/** Forgets what the account allowed the client, and ends the account's logins of that client. */
export const withdrawConsent =
  (p: { accountId: number; clientId: string }): RequestOf<Command, 'WithdrawConsent'> =>
  (sender) => ({ type: 'WithdrawConsent', accountId: p.accountId, clientId: p.clientId, sender });

/** RFC 7009: a refresh token revokes its whole login; an access token is refused until it expires. Unknown tokens are ignored. */
export const revoke =
  (p: { clientId: string; token: string }): RequestOf<Command, 'Revoke'> =>
  (sender) => ({ type: 'Revoke', clientId: p.clientId, token: p.token, sender });

/** RFC 7662: whether a token is active, and its claims when it is. */
export const introspect =
  (p: { clientId: string; token: string }): RequestOf<Command, 'Introspect'> =>
  (sender) => ({ type: 'Introspect', clientId: p.clientId, token: p.token, sender });

const scope = z.array(z.string()).optional();
const ticket = z.strictObject({ id: z.string(), expiresAt: z.number().int() });
/** The fields of {@link CodeTerms}. */
const codeTerms = {
  clientId: z.string(),
  redirectUri: z.string(),
  scope,
  codeChallenge: z.string().optional(),
  nonce: z.string().optional(),
  askConsent: z.boolean().optional(),
};

const credentials = {
  username: z.string(),
  password: z.string(),
  address: z.string().optional(),
  replacing: z.string().optional(),
};

/**
 * What makes each message valid besides its `type` and `sender`: strings where strings belong.
 * HTTP reads these fields from OAuth forms, whose own rules (RFC 6749) it applies there.
 * A new message kind without a schema fails to compile.
 */
export const schemas = {
  Grant: z.strictObject({
    clientId: z.string(),
    grant: z.discriminatedUnion('grantType', [
      z.strictObject({ grantType: z.literal('password'), username: z.string(), password: z.string(), scope }),
      z.strictObject({ grantType: z.literal('refresh_token'), refreshToken: z.string(), scope }),
      z.strictObject({ grantType: z.literal('client_credentials'), scope }),
      z.strictObject({
        grantType: z.literal('authorization_code'),
        code: z.string(),
        redirectUri: z.string(),
        codeVerifier: z.string().optional(),
      }),
    ]),
    address: z.string().optional(),
  }),
  Authorize: z.strictObject({ ...codeTerms, ...credentials }),
  AuthorizeSignedIn: z.strictObject({
    ...codeTerms,
    session: z.string(),
    maxAge: z.number().int().nonnegative().optional(),
    subject: z.string().optional(),
  }),
  AuthorizeConsented: z.strictObject({
    ...codeTerms,
    accountId: z.number().int(),
    accountVersion: z.number().int(),
    authTime: z.number().int(),
    ticket,
  }),
  DenyConsent: z.strictObject({ ticket }),
  ListConsents: z.strictObject({ accountId: z.number().int() }),
  WithdrawConsent: z.strictObject({ accountId: z.number().int(), clientId: z.string() }),
  SignIn: z.strictObject(credentials),
  GetSession: z.strictObject({ session: z.string() }),
  EndSession: z.strictObject({ session: z.string() }),
  SignOut: z.strictObject({ session: z.string(), subject: z.string().optional() }),
  ListSessions: z.strictObject({ accountId: z.number().int() }),
  EndSessions: z.strictObject({ accountId: z.number().int() }),
  Revoke: z.strictObject({ clientId: z.string(), token: z.string() }),
  Introspect: z.strictObject({ clientId: z.string(), token: z.string() }),
} as const satisfies MessageSchemas<Command>;

/** What the REPL's `.protocol token` lists (one per grant type for `Grant`): {@link MessageExamples}. */
export const examples = {
  Grant: [
    "Token.issueToken({ clientId: 'troupe-client', username: 'john.doe', password: 'john-password', scope: ['read'] })",
    "Token.refresh({ clientId: 'troupe-client', refreshToken: '<refreshToken of an issueToken reply>' })",
    "Token.clientCredentials({ clientId: 'reporting-service', scope: ['read'] })",
    "Token.redeemCode({ clientId: 'web-app', code: '<code of an Authorize reply>', redirectUri: 'https://app.example/callback', codeVerifier: 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk' })",
  ],
  Authorize:
    "Token.authorize({ clientId: 'web-app', redirectUri: 'https://app.example/callback', username: 'john.doe', password: 'john-password', codeChallenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM' })",
  AuthorizeConsented:
    "Token.authorizeConsented({ clientId: 'web-app', redirectUri: 'https://app.example/callback', scope: ['openid', 'read'], codeChallenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM', nonce: 'n-0S6_WzA2Mj', accountId: 2, accountVersion: 0, authTime: 1767225300, ticket: { id: 'Hk3v9QpX2mL0sT7wYb4nEg', expiresAt: 1767225600 } })",
  AuthorizeSignedIn:
    "Token.authorizeSignedIn({ clientId: 'web-app', redirectUri: 'https://app.example/callback', codeChallenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM', session: '<the session of an Authorize reply>' })",
  DenyConsent: "Token.denyConsent({ ticket: { id: 'Hk3v9QpX2mL0sT7wYb4nEg', expiresAt: 1767225600 } })",
  SignIn: "Token.signIn({ username: 'john.doe', password: 'john-password' })",
  GetSession: "Token.getSession({ session: '<the session of an Authorize or SignIn reply>' })",
  EndSession: "Token.endSession({ session: '<the session of an Authorize reply>' })",
  SignOut: "Token.signOut({ session: '<the session of an Authorize reply>', subject: 'account:2' })",
  ListSessions: 'Token.listSessions({ accountId: 2 })',
  EndSessions: 'Token.endSessions({ accountId: 2 })',
  ListConsents: 'Token.listConsents({ accountId: 2 })',
  WithdrawConsent: "Token.withdrawConsent({ accountId: 2, clientId: 'web-app' })",
  Revoke: "Token.revoke({ clientId: 'troupe-client', token: '<an access or refresh token>' })",
  Introspect: "Token.introspect({ clientId: 'troupe-client', token: '<an access or refresh token>' })",
} as const satisfies MessageExamples<Command>;

/**
 * TokenActor: the authorization server's state — users, roles, the registered client and refresh
 * tokens. Build messages with the functions below and send them with `ask`.
 */
import { z } from 'zod';
import type { MessageSchemas } from '../../src/fields.ts';
import type { Request } from '../../src/messaging/ask.ts';
import type { Ref } from '../../src/messaging/nact.ts';
import type { Reply } from '../../src/messaging/reply.ts';
import type { GrantType } from '../../src/config.ts';
import { accountExamples, accountSchemas, type AccountCommand } from './account-protocol.ts';

// Account administration is TokenActor's too: its builders are part of this protocol (`Token.createAccount`).
export * from './account-protocol.ts';

export type ErrorCode =
  | 'client.invalid' // unknown client or wrong secret
  | 'grant.invalid' // bad user credentials; unknown, expired, revoked or reused refresh token
  | 'grant.unauthorized' // the grant type is not enabled for the client
  | 'scope.invalid' // a scope the client (or the refresh token) does not have
  | 'client.mismatch'; // the token was issued to another client

export interface ClientView {
  readonly clientId: string;
  readonly grantTypes: readonly GrantType[];
  readonly scopes: readonly string[];
}

export interface TokenGrant {
  readonly accessToken: string;
  readonly tokenType: 'bearer';
  /** Absent when the client may not use the refresh_token grant. */
  readonly refreshToken: string | undefined;
  /** Seconds until the access token expires. */
  readonly expiresIn: number;
  readonly scope: readonly string[];
  readonly jti: string;
}

export interface RoleView {
  readonly id: number;
  readonly roleName: string;
  readonly description: string;
}

export interface AccountView {
  readonly id: number;
  readonly username: string;
  /** BCrypt hash: present only when the request asked for it. */
  readonly password?: string;
  readonly firstName: string;
  readonly lastName: string;
  readonly roles: readonly RoleView[];
}

/** RFC 7662 introspection, in this project's casing; HTTP writes the wire names. */
export type Introspection =
  | { readonly active: false }
  | {
      readonly active: true;
      readonly tokenType: 'access_token' | 'refresh_token';
      readonly scope: readonly string[];
      readonly clientId: string;
      readonly username: string;
      readonly exp: number;
      readonly iat: number;
      /** Access tokens only. */
      readonly jti: string | undefined;
    };

export type ClientReply = Reply<ClientView, 'client.invalid'>;
export type RevokeReply = Reply<null, 'client.mismatch'>;
export type IntrospectReply = Reply<Introspection>;
export type GrantReply = Reply<TokenGrant, ErrorCode>;
export type AccountsReply = Reply<readonly AccountView[]>;

export type Command =
  | {
      readonly type: 'AuthenticateClient';
      readonly clientId: string;
      readonly clientSecret: string;
      readonly sender: Ref<ClientReply>;
    }
  | {
      readonly type: 'IssueToken';
      readonly clientId: string;
      readonly username: string;
      readonly password: string;
      /** Undefined: every scope of the client. */
      readonly scope: readonly string[] | undefined;
      readonly sender: Ref<GrantReply>;
    }
  | {
      readonly type: 'Refresh';
      readonly clientId: string;
      readonly refreshToken: string;
      /** Undefined: the refresh token's scope; otherwise it may only narrow it. */
      readonly scope: readonly string[] | undefined;
      readonly sender: Ref<GrantReply>;
    }
  | { readonly type: 'ListUsers'; readonly includePasswordHash: boolean; readonly sender: Ref<AccountsReply> }
  | { readonly type: 'Revoke'; readonly clientId: string; readonly token: string; readonly sender: Ref<RevokeReply> }
  | {
      readonly type: 'Introspect';
      readonly clientId: string;
      readonly token: string;
      readonly sender: Ref<IntrospectReply>;
    }
  | AccountCommand;

/** Checks client credentials (HTTP Basic or client_secret_post). */
export const authenticateClient =
  (clientId: string, clientSecret: string): Request<Command, ClientReply> =>
  (sender) => ({ type: 'AuthenticateClient', clientId, clientSecret, sender });

/** Password grant for an already authenticated client. */
export const issueToken =
  (p: {
    clientId: string;
    username: string;
    password: string;
    scope?: readonly string[] | undefined;
  }): Request<Command, GrantReply> =>
  (sender) => ({
    type: 'IssueToken',
    clientId: p.clientId,
    username: p.username,
    password: p.password,
    scope: p.scope,
    sender,
  });

/** Refresh-token grant: rotates the token; a token presented twice revokes its whole login. */
export const refresh =
  (p: {
    clientId: string;
    refreshToken: string;
    scope?: readonly string[] | undefined;
  }): Request<Command, GrantReply> =>
  (sender) => ({ type: 'Refresh', clientId: p.clientId, refreshToken: p.refreshToken, scope: p.scope, sender });

/** Every account with its roles, ordered by id; the BCrypt hashes only when asked for, explicitly. */
export const listAccounts =
  (options: { includePasswordHash?: boolean } = {}): Request<Command, AccountsReply> =>
  (sender) => ({ type: 'ListUsers', includePasswordHash: options.includePasswordHash === true, sender });

/** RFC 7009: a refresh token revokes its whole login; an access token is refused until it expires. Unknown tokens are ignored. */
export const revoke =
  (p: { clientId: string; token: string }): Request<Command, RevokeReply> =>
  (sender) => ({ type: 'Revoke', clientId: p.clientId, token: p.token, sender });

/** RFC 7662: whether a token is active, and its claims when it is. */
export const introspect =
  (p: { clientId: string; token: string }): Request<Command, IntrospectReply> =>
  (sender) => ({ type: 'Introspect', clientId: p.clientId, token: p.token, sender });

const scope = z.array(z.string()).optional();

/**
 * What makes each message valid besides its `type` and `sender`: strings where strings belong.
 * HTTP reads these fields from OAuth forms, whose own rules (RFC 6749) it applies there.
 * A new message kind without a schema fails to compile.
 */
export const schemas = {
  AuthenticateClient: z.strictObject({ clientId: z.string(), clientSecret: z.string() }),
  IssueToken: z.strictObject({ clientId: z.string(), username: z.string(), password: z.string(), scope }),
  Refresh: z.strictObject({ clientId: z.string(), refreshToken: z.string(), scope }),
  ListUsers: z.strictObject({ includePasswordHash: z.boolean().default(false) }),
  Revoke: z.strictObject({ clientId: z.string(), token: z.string() }),
  Introspect: z.strictObject({ clientId: z.string(), token: z.string() }),
  ...accountSchemas,
} as const satisfies MessageSchemas<Command>;

/**
 * One call per message kind, as a REPL user would type it (`await ask(token, <example>)`); the
 * REPL's `.protocol token` lists them. A new message kind without an example fails to compile.
 */
export const examples = {
  AuthenticateClient: "Token.authenticateClient('troupe-client', 'troupe-secret')",
  IssueToken:
    "Token.issueToken({ clientId: 'troupe-client', username: 'john.doe', password: 'john-password', scope: ['read'] })",
  Refresh: "Token.refresh({ clientId: 'troupe-client', refreshToken: '<refreshToken of an IssueToken reply>' })",
  ListUsers: 'Token.listAccounts()',
  Revoke: "Token.revoke({ clientId: 'troupe-client', token: '<an access or refresh token>' })",
  Introspect: "Token.introspect({ clientId: 'troupe-client', token: '<an access or refresh token>' })",
  ...accountExamples,
} as const satisfies Record<Command['type'], string>;

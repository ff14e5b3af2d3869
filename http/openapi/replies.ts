/**
 * The replies a route declares (status → description, body schema, headers), and the sets many
 * routes share, declared once: the bearer refusals, the 503, a JSON body's refusals, the OAuth
 * client's.
 */
import { z } from 'zod';
import * as S from './shapes.ts';

export interface ReplySpec {
  readonly description: string;
  readonly schema?: z.ZodType;
  /** Defaults to application/json when a schema is given. */
  readonly type?: string;
  /** The same answer in another media type, for a request that prefers it (`Accept`). */
  readonly alternative?: { readonly type: string; readonly schema: z.ZodType } | undefined;
  readonly headers?: readonly string[];
}

/** Each status a route answers itself, by its HTTP status code. */
export type Replies = Readonly<Record<number, ReplySpec>>;

export const problem = (description: string, headers?: readonly string[]): ReplySpec => ({
  description,
  schema: S.Problem,
  type: 'application/problem+json',
  ...(headers ? { headers } : {}),
});
export const oauthError = (description: string, headers?: readonly string[]): ReplySpec => ({
  description,
  schema: S.OAuthErrorBody,
  ...(headers ? { headers } : {}),
});
export const text = (description: string): ReplySpec => ({ description, schema: z.string(), type: 'text/plain' });
export const done: ReplySpec = { description: 'Done' };

/** A 503 of a route that answers problem details. */
export const UNAVAILABLE = {
  503: problem('Overloaded, or a store (the signing-key set in it included) cannot be read', ['Retry-After']),
} as const;

/** A JSON body's refusals. */
export const BODY_ERRORS = {
  400: problem('Invalid input (`validation`, with `errors`) or malformed JSON'),
  413: problem('Body too large'),
  415: problem('Not application/json'),
} as const;

const STORE_DOWN = problem('Overloaded or a store is unreachable', ['Retry-After']);

/** What an /api route with a scope answers besides its own rows: no or a bad token, a missing scope, a store down. */
export const API_COMMON = {
  401: oauthError('No or an invalid token', ['WWW-Authenticate']),
  403: oauthError('`insufficient_scope`', ['WWW-Authenticate']),
  503: STORE_DOWN,
} as const;

/** The 401 of a bearer route: no token, or one that is not (or no longer) valid. */
const UNAUTHENTICATED = oauthError(
  'No token (`unauthorized`) or an invalid one (`invalid_token`): revoked, expired, or of a disabled account',
  ['WWW-Authenticate'],
);

/** What an account administration route answers besides its own rows (ADMIN with the read or write scope). */
export const ADMIN_COMMON = {
  401: UNAUTHENTICATED,
  // No challenge: `access_denied` has none, and only `insufficient_scope` does.
  403: oauthError('`insufficient_scope` (the read or write scope is missing) or `access_denied` (not an ADMIN)'),
  503: STORE_DOWN,
} as const;

/**
 * The 403 of a self-service route (`SELF_SERVICE`): a token of a client that is not one of the
 * service's own applications, with its RFC 6750 challenge; with security off, no one.
 */
export const SELF_SERVICE_FORBIDDEN = oauthError(
  "`insufficient_scope`: the token was issued to a client that is not one of the service's own applications (the `security.jwt.*` client, or one registered with `consent: implicit`), whatever its scope; or `access_denied`: security is switched off",
  ['WWW-Authenticate'],
);

/** What a bearer route of the secured service refuses before its handler runs. */
export const BEARER_ERRORS = {
  401: oauthError('No token (`unauthorized`) or an invalid one (`invalid_token`)', ['WWW-Authenticate']),
  400: oauthError('Two Authorization headers, or a token in the query string (`invalid_request`)', [
    'WWW-Authenticate',
  ]),
} as const;

/** What a client-authenticated OAuth endpoint refuses before its handler runs. */
export const CLIENT_ERRORS = {
  400: oauthError(
    '`invalid_request`: not form-encoded, a missing or repeated parameter, credentials in the query string',
  ),
  401: oauthError(
    '`invalid_client`: no, malformed or wrong client credentials, or a secret sent by a method the client did not register',
    ['WWW-Authenticate'],
  ),
  429: oauthError('`too_many_requests`: too many failed client authentications from the address', ['Retry-After']),
} as const;

/** The 503 of an OAuth endpoint. */
export const OAUTH_UNAVAILABLE = {
  503: oauthError(
    '`temporarily_unavailable`: overloaded, or a store (the signing-key set in it included) cannot be read',
    ['Retry-After'],
  ),
} as const;

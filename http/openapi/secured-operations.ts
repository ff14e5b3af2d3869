/** The secured service's and the operational endpoints' descriptions. */
import { z } from 'zod';
import type { Operation, ResponseSpec } from './document.ts';
import * as S from './shapes.ts';

const oauthError = (description: string, headers?: string[]): ResponseSpec => ({
  description,
  schema: S.OAuthErrorBody,
  ...(headers ? { headers } : {}),
});
const authErrors = {
  401: oauthError('No token (`unauthorized`) or an invalid one (`invalid_token`)', ['WWW-Authenticate']),
  400: oauthError('Two Authorization headers, or a token in the query string (`invalid_request`)', [
    'WWW-Authenticate',
  ]),
} as const;
const clientErrors = {
  400: oauthError(
    '`invalid_request`: not form-encoded, a missing or repeated parameter, credentials in the query string',
  ),
  401: oauthError(
    '`invalid_client`: no, malformed or wrong client credentials, or a secret sent by a method the client did not register',
    ['WWW-Authenticate'],
  ),
  429: oauthError('`too_many_requests`: too many failed client authentications from the address', ['Retry-After']),
} as const;
/** Introspection takes no public client (RFC 7662 §2.1). */
const introspectionUnauthorized = oauthError(
  '`invalid_client`: no, malformed or wrong client credentials, a secret sent by a method the client did not register, or a public client (`none`), which cannot authenticate',
  ['WWW-Authenticate'],
);
const overloaded = oauthError(
  '`temporarily_unavailable`: overloaded, or a store (the signing-key set in it included) cannot be read',
  ['Retry-After'],
);
/** A 503 of a route that answers problem details. */
const unavailable: ResponseSpec = {
  description: 'Overloaded, or a store (the signing-key set in it included) cannot be read',
  schema: S.Problem,
  type: 'application/problem+json',
  headers: ['Retry-After'],
};
const form = (schema: z.ZodType) => ({ type: 'application/x-www-form-urlencoded' as const, schema });
const text = (description: string): ResponseSpec => ({ description, schema: z.string(), type: 'text/plain' });

export const securedOperations: readonly Operation[] = [
  {
    method: 'post',
    path: '/oauth/token',
    tag: 'secured',
    summary: 'Tokens for a client: from an authorization code, its own credentials, a refresh token or a password',
    body: form(S.TokenRequest),
    responses: {
      200: { description: 'Tokens (Cache-Control: no-store)', schema: S.TokenResponse },
      400: oauthError(
        '`invalid_request`, `unsupported_grant_type`, `unauthorized_client` (a grant the client is not registered for), `invalid_grant` (Bad credentials; refresh token unknown, expired, revoked or reused; code unknown, expired, already used (its tokens are then revoked), of another client or redirect_uri, or a code_verifier that does not match), `invalid_scope`',
      ),
      401: clientErrors[401],
      413: oauthError('Body too large'),
      429: oauthError(
        '`too_many_requests`: too many failed logins for the username or address, or failed client authentications from the address',
        ['Retry-After'],
      ),
      503: overloaded,
    },
  },
  {
    method: 'post',
    path: '/oauth/revoke',
    tag: 'secured',
    summary: 'Revoke a token: it stops working (RFC 7009)',
    body: form(S.TokenForm),
    responses: {
      200: { description: 'Revoked, or unknown', schema: z.object({}) },
      400: clientErrors[400],
      401: clientErrors[401],
      429: clientErrors[429],
      503: overloaded,
    },
  },
  {
    method: 'post',
    path: '/oauth/introspect',
    tag: 'secured',
    summary: 'Whether a token is active, and what it grants (RFC 7662)',
    body: form(S.TokenForm),
    responses: {
      200: { description: 'Active with its claims, or inactive', schema: S.Introspection },
      400: clientErrors[400],
      401: introspectionUnauthorized,
      429: clientErrors[429],
      503: overloaded,
    },
  },
  {
    method: 'post',
    path: '/oauth/check_token',
    tag: 'secured',
    summary: 'Whether a token is active, and what it grants: the older path of /oauth/introspect',
    body: form(S.TokenForm),
    responses: {
      200: { description: 'As /oauth/introspect', schema: S.Introspection },
      400: clientErrors[400],
      401: introspectionUnauthorized,
      429: clientErrors[429],
      503: overloaded,
    },
  },
  {
    method: 'get',
    path: '/oauth/token_key',
    tag: 'secured',
    summary: 'The public key that verifies access tokens, in PEM',
    responses: {
      200: { description: 'PEM public key (RSA or EC) and its Java algorithm name', schema: S.TokenKey },
      403: oauthError('The active key is a MAC key, never disclosed'),
      503: overloaded,
    },
  },
  {
    method: 'get',
    path: '/.well-known/jwks.json',
    tag: 'secured',
    summary: 'Every public key that verifies access tokens, as a JSON Web Key Set (RFC 7517)',
    responses: {
      200: {
        description: 'The public keys that verify now, each with kid, alg and use; MAC keys are never listed',
        schema: S.Jwks,
        headers: ['Cache-Control'],
      },
      503: unavailable,
    },
  },
  {
    method: 'get',
    path: '/.well-known/oauth-authorization-server',
    tag: 'secured',
    summary: 'Where the OAuth endpoints are and what they support (RFC 8414)',
    responses: { 200: { description: 'Metadata', schema: S.Metadata } },
  },
  {
    method: 'get',
    path: '/app/listAll',
    tag: 'secured',
    summary: 'Every account with its roles',
    responses: {
      200: { description: 'The accounts', schema: z.array(S.Account) },
      ...authErrors,
      503: unavailable,
    },
  },
  {
    method: 'get',
    path: '/app/admin',
    tag: 'secured',
    summary: 'A greeting, for users with the ADMIN role',
    responses: {
      200: text('Greeting'),
      ...authErrors,
      403: oauthError('`access_denied`: the role is missing'),
      503: unavailable,
    },
  },
  {
    method: 'get',
    path: '/app/user',
    tag: 'secured',
    summary: 'A greeting, for users with the USER role',
    responses: {
      200: text('Greeting'),
      ...authErrors,
      403: oauthError('`access_denied`: the role is missing'),
      503: unavailable,
    },
  },
];

export const operationsOperations: readonly Operation[] = [
  {
    method: 'get',
    path: '/health',
    tag: 'operations',
    summary: 'Whether the server is running',
    responses: { 200: { description: 'The process runs', schema: S.Health } },
  },
  {
    method: 'get',
    path: '/ready',
    tag: 'operations',
    summary: 'Whether the server can serve requests: every store answers',
    responses: {
      200: { description: 'Ready', schema: S.Health },
      503: {
        description: 'A store does not answer or is still being prepared, or the signing-key set in it cannot be used',
        schema: S.Health,
      },
    },
  },
  {
    method: 'get',
    path: '/metrics',
    tag: 'operations',
    summary: 'Metrics, in the Prometheus text format',
    responses: { 200: text('Prometheus text format') },
  },
  {
    method: 'get',
    path: '/openapi.json',
    tag: 'operations',
    summary: 'This API description (OpenAPI 3.1)',
    responses: { 200: { description: 'OpenAPI 3.1', schema: z.record(z.string(), z.unknown()) } },
  },
  {
    method: 'get',
    path: '/docs',
    tag: 'operations',
    summary: 'This API description as a page to browse and try',
    responses: { 200: { description: 'HTML', schema: z.string(), type: 'text/html' } },
  },
];

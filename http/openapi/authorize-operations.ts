/** The authorization endpoint's description (RFC 6749 §4.1 with PKCE and RFC 9207). */
import { z } from 'zod';
import type { Operation, ResponseSpec } from './document.ts';

const AuthorizationRequest = z.object({
  response_type: z.literal('code'),
  client_id: z.string(),
  redirect_uri: z
    .string()
    .optional()
    .meta({ description: 'Compared exactly with the registered ones; may be left out when the client has one' }),
  scope: z.string().optional().meta({ description: 'Space-separated; within the client’s scope. Default: all of it' }),
  state: z.string().optional(),
  code_challenge: z.string().meta({ description: 'PKCE S256 challenge (43 base64url characters); required' }),
  code_challenge_method: z.literal('S256'),
});

const SignIn = AuthorizationRequest.extend({
  csrf_token: z.string().meta({ description: 'From the served form; valid with the cookie it was served with' }),
  username: z.string(),
  password: z.string(),
});

const headers = ['Content-Security-Policy', 'X-Frame-Options', 'Cache-Control', 'Referrer-Policy'];
const html = (description: string, extra: string[] = []): ResponseSpec => ({
  description,
  schema: z.string(),
  type: 'text/html',
  headers: [...headers, ...extra],
});
const redirect = (description: string): ResponseSpec => ({
  description,
  schema: z.string(),
  type: 'text/html',
  headers: ['Location', ...headers],
});
const errorPage = html(
  'Error page, never a redirect: unknown client, unregistered `redirect_uri`, a repeated client_id or redirect_uri; on POST also a CSRF token that does not match its cookie and request',
);
const backWithError =
  'to the redirect_uri with `error` (`invalid_request`: missing or non-S256 PKCE, a repeated parameter; `unsupported_response_type`; `unauthorized_client`; `invalid_scope`), `error_description`, `state` and `iss`';

export const authorizeOperations: readonly Operation[] = [
  {
    method: 'get',
    path: '/oauth/authorize',
    tag: 'secured',
    summary: 'The sign-in page an application sends its user to for an authorization code (PKCE S256)',
    query: AuthorizationRequest,
    responses: {
      200: html('The sign-in form (no script, no external asset), with a CSRF cookie', ['Set-Cookie']),
      302: redirect(`Back ${backWithError}`),
      400: errorPage,
    },
  },
  {
    method: 'post',
    path: '/oauth/authorize',
    tag: 'secured',
    summary: 'Sign in; on success, back to the application with an authorization code',
    body: { type: 'application/x-www-form-urlencoded', schema: SignIn },
    responses: {
      303: redirect(
        `Signed in: to the redirect_uri with \`code\` (single use, valid 60 s), \`state\` and \`iss\`; or back ${backWithError}`,
      ),
      400: html('The form again with "Wrong username or password", or the error page', ['Set-Cookie']),
      429: html('The form again: too many failed sign-ins for the username or address', ['Retry-After', 'Set-Cookie']),
    },
  },
];

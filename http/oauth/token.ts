import * as Token from '../../actors/token/protocol.ts';
import { ask, type Request } from '../../src/messaging/ask.ts';
import { grantTypeName, SCOPE_TOKEN } from '../../src/security/formats.ts';
import { formParams } from '../middleware/body.ts';
import { type OAuthRouteDeps } from './client-authentication.ts';
import { OAuthError, replyValue } from '../problems.ts';
import { oauthError } from '../openapi/replies.ts';
import * as S from '../openapi/shapes.ts';
import { clientOf, route, type Declared, type Route } from '../route-table.ts';
import { CLIENT } from '../guards.ts';
import { documented, form } from '../validation.ts';
import { reportGrant } from './events.ts';
import { required, single } from './form.ts';

function parseScope(params: URLSearchParams): string[] | undefined {
  const raw = single(params, 'scope');
  if (raw === undefined) return undefined;
  const scope = [...new Set(raw.split(' ').filter(Boolean))];
  if (scope.length === 0 || !scope.every((s) => SCOPE_TOKEN.test(s)))
    throw new OAuthError(400, 'invalid_scope', 'Malformed scope');
  return scope;
}

/** What a grant's input is read from: the form, and the scope it names (parsed once for every grant type). */
interface Form {
  readonly params: URLSearchParams;
  readonly scope: string[] | undefined;
}

/**
 * Each grant's input, read from the form, keyed by `grant_type` as TokenActor's grant table is
 * (actors/token/grants/table.ts): a grant type without its form fails to compile.
 */
const GRANT_FORMS = {
  // Counted by TokenActor's login throttle as a login from the client's address.
  password: ({ params, scope }) => ({
    grantType: 'password',
    username: required(params, 'username'),
    // TokenActor refuses a password past BCrypt's limit (invalid_request), as for every login.
    password: required(params, 'password'),
    scope,
  }),
  refresh_token: ({ params, scope }) => ({
    grantType: 'refresh_token',
    refreshToken: required(params, 'refresh_token'),
    scope,
  }),
  client_credentials: ({ scope }) => ({ grantType: 'client_credentials', scope }),
  // The scope is the one the code was issued for (RFC 6749 §4.1.3 has no scope parameter).
  authorization_code: ({ params }) => ({
    grantType: 'authorization_code',
    code: required(params, 'code'),
    redirectUri: required(params, 'redirect_uri'),
    codeVerifier: required(params, 'code_verifier'),
  }),
} satisfies { readonly [K in Token.GrantType]: (form: Form) => Token.GrantOf<K> };

const isGrantType = (name: string): name is Token.GrantType => Object.hasOwn(GRANT_FORMS, name);

/** The one message of the token endpoint: the grant read from the form, for the client, from its address. */
function grantRequest(
  params: URLSearchParams,
  clientId: string,
  address: string,
): Request<Token.Command, Token.GrantReply> {
  const grantType = grantTypeName(required(params, 'grant_type'));
  const scope = parseScope(params);
  if (isGrantType(grantType))
    return Token.grant({ clientId, address, grant: GRANT_FORMS[grantType]({ params, scope }) });
  throw new OAuthError(400, 'unsupported_grant_type', `Unsupported grant type: ${grantType.slice(0, 64)}`);
}

function tokenBody(grant: Token.TokenGrant): Record<string, string | number> {
  return {
    access_token: grant.accessToken,
    token_type: grant.tokenType,
    ...(grant.refreshToken === undefined ? {} : { refresh_token: grant.refreshToken }),
    expires_in: grant.expiresIn,
    scope: grant.scope.join(' '),
    jti: grant.jti,
  };
}

/** The form is read by the handler: its errors are RFC 6749 §5.2's, not the `validation` problem. */
const TOKEN = {
  method: 'POST',
  path: '/oauth/token',
  tag: 'secured',
  summary: 'Tokens for a client: from an authorization code, its own credentials, a refresh token or a password',
  body: documented(form(S.TokenRequest)),
  replies: {
    200: { description: 'Tokens (Cache-Control: no-store)', schema: S.TokenResponse },
    400: oauthError('`unsupported_grant_type`: a grant type the server does not know'),
  },
  errors: [
    'request.invalid',
    'grant.unauthorized',
    [
      'grant.invalid',
      'Bad credentials; refresh token unknown, expired, revoked or reused; code unknown, expired, already used (its tokens are then revoked), of another client or redirect_uri, or a code_verifier that does not match',
    ],
    'scope.invalid',
    ['login.throttled', 'too many failed logins for the username or address, before a password is checked'],
  ],
} satisfies Declared;

/** POST /oauth/token: the password, refresh_token, client_credentials and authorization_code grants (RFC 6749, RFC 7636). */
export function oauthGrantRoutes(deps: OAuthRouteDeps): Route[] {
  return [
    route({ ...TOKEN, access: CLIENT }, async function token(ctx) {
      const params = formParams(ctx);
      const clientId = clientOf(ctx).clientId;
      const request = grantRequest(params, clientId, ctx.ip);
      const reply = await ask(deps.token, request, deps.askTimeoutMs);
      reportGrant(deps.logger, ctx, params, clientId, reply);
      ctx.body = tokenBody(replyValue(reply));
    }),
  ];
}

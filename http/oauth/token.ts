import { z } from 'zod';
import * as Token from '../../actors/token/protocol.ts';
import { ask } from '../../src/messaging/ask.ts';
import { SCOPE_TOKEN } from '../../src/security/formats.ts';
import { type OAuthRouteDeps } from './client-authentication.ts';
import { replyValue } from '../problems.ts';
import * as S from '../openapi/shapes.ts';
import { clientOf, route, type Declared, type Route } from '../route-table.ts';
import { CLIENT } from '../guards.ts';
import { oauthForm } from '../form-validation.ts';
import { reportGrant } from './events.ts';

/** The scope a grant asks for: space-separated tokens, each kept once; an empty or malformed one is refused. */
const scope = z
  .string()
  .transform((raw, ctx) => {
    const tokens = [...new Set(raw.split(' ').filter(Boolean))];
    if (tokens.length > 0 && tokens.every((s) => SCOPE_TOKEN.test(s))) return tokens;
    ctx.addIssue({ code: 'custom', message: 'Malformed scope' });
    return z.NEVER;
  })
  .optional()
  .meta({ description: 'Space-separated; within the client’s scope. Default: all of it' });

/**
 * Each grant's form, read into its input, keyed by `grant_type` as TokenActor's grant table is
 * (actors/token/grants/table.ts): a grant type without its form fails to compile. A form names
 * `scope` first: a malformed scope is refused before a missing parameter.
 */
const GRANT_FORMS = {
  // Counted by TokenActor's login throttle as a login from the client's address.
  password: z
    .object({
      grant_type: z.literal('password'),
      scope,
      username: S.FormParameter,
      // TokenActor refuses a password past BCrypt's limit (invalid_request), as for every login.
      password: S.FormParameter,
      ...S.ClientParameters,
    })
    .transform((form) => ({
      grantType: 'password' as const,
      username: form.username,
      password: form.password,
      scope: form.scope,
    })),
  refresh_token: z
    .object({
      grant_type: z
        .enum(['refresh_token', 'refresh-token'])
        .meta({ description: '`refresh-token` is accepted as a spelling of `refresh_token`' }),
      scope,
      refresh_token: S.FormParameter,
      ...S.ClientParameters,
    })
    .transform((form) => ({
      grantType: 'refresh_token' as const,
      refreshToken: form.refresh_token,
      scope: form.scope,
    })),
  client_credentials: z
    .object({ grant_type: z.literal('client_credentials'), scope, ...S.ClientParameters })
    .transform((form) => ({ grantType: 'client_credentials' as const, scope: form.scope })),
  // The scope is the one the code was issued for (RFC 6749 §4.1.3 has no scope parameter).
  authorization_code: z
    .object({
      grant_type: z.literal('authorization_code'),
      code: S.FormParameter.meta({ description: 'The code from the redirect' }),
      redirect_uri: S.FormParameter.meta({ description: 'As in the authorization request' }),
      code_verifier: S.FormParameter.optional().meta({
        description:
          'The PKCE verifier: required for a code issued with a challenge, refused (invalid_grant) for one issued without',
      }),
      ...S.ClientParameters,
    })
    .transform((form) => ({
      grantType: 'authorization_code' as const,
      code: form.code,
      redirectUri: form.redirect_uri,
      codeVerifier: form.code_verifier,
    })),
} satisfies { readonly [K in Token.GrantType]: z.ZodType<Token.GrantOf<K>> };

/** The token endpoint's form: one of the grants' forms, told apart by `grant_type`. */
const TokenRequest = z
  .discriminatedUnion('grant_type', [
    GRANT_FORMS.password,
    GRANT_FORMS.refresh_token,
    GRANT_FORMS.client_credentials,
    GRANT_FORMS.authorization_code,
  ])
  .meta({ title: 'TokenRequest' });

// Every grant of the table is one the form can name: a grant type left out of the union fails to compile.
const everyGrantRead: Readonly<Record<Exclude<Token.GrantType, z.output<typeof TokenRequest>['grantType']>, never>> =
  {};
void everyGrantRead;

/** The token form's own refusals: a `grant_type` the union does not know, a malformed scope. */
const tokenForm = oauthForm(TokenRequest, {
  grant_type: {
    error: 'unsupported_grant_type',
    description: (value) => `Unsupported grant type: ${value.slice(0, 64)}`,
    words: 'a grant type the server does not know',
  },
  scope: { error: 'invalid_scope', description: () => 'Malformed scope', words: 'a malformed scope' },
});

function tokenBody(grant: Token.TokenGrant): Record<string, string | number> {
  return {
    access_token: grant.accessToken,
    token_type: grant.tokenType,
    ...(grant.refreshToken === undefined ? {} : { refresh_token: grant.refreshToken }),
    expires_in: grant.expiresIn,
    scope: grant.scope.join(' '),
    jti: grant.jti,
    ...(grant.idToken === undefined ? {} : { id_token: grant.idToken }),
  };
}

/** The form is validated before the handler, its errors RFC 6749 §5.2's, not the `validation` problem. */
const TOKEN = {
  method: 'POST',
  path: '/oauth/token',
  tag: 'secured',
  summary: 'Tokens for a client: from an authorization code, its own credentials, a refresh token or a password',
  body: tokenForm,
  replies: {
    200: {
      description: 'Tokens (Cache-Control: no-store); with an id_token for a code or refresh of an `openid` login',
      schema: S.TokenResponse,
    },
  },
  errors: [
    'request.invalid',
    'grant.unauthorized',
    [
      'grant.invalid',
      'Bad credentials; refresh token unknown, expired, revoked or reused; code unknown, expired, already used (its tokens are then revoked), of another client or redirect_uri, or a code_verifier that does not match, is missing, or is sent for a code issued without a challenge',
    ],
    'scope.invalid',
    ['login.throttled', 'too many failed logins for the username or address, before a password is checked'],
  ],
} satisfies Declared;

/** POST /oauth/token: the password, refresh_token, client_credentials and authorization_code grants (RFC 6749, RFC 7636). */
export function oauthGrantRoutes(deps: OAuthRouteDeps): Route[] {
  return [
    route({ ...TOKEN, access: CLIENT }, async function token(ctx, { body: grant }) {
      const clientId = clientOf(ctx).clientId;
      const reply = await ask(deps.token, Token.grant({ clientId, address: ctx.ip, grant }), deps.askTimeoutMs);
      reportGrant(deps.logger, ctx, grant, clientId, reply);
      ctx.body = tokenBody(replyValue(reply));
    }),
  ];
}

import type { Context } from 'koa';
import { z } from 'zod';
import * as Token from '../../actors/token/protocol.ts';
import { ask } from '../../src/messaging/ask.ts';
import type { OAuthRouteDeps } from './client-authentication.ts';
import { replyValue } from '../problems.ts';
import * as S from '../openapi/shapes.ts';
import { clientOf, route, type Declared, type Route } from '../route-table.ts';
import { CLIENT, CONFIDENTIAL_CLIENT } from '../guards.ts';
import { oauthForm } from '../form-validation.ts';
import { securityEvent } from '../security-events.ts';

export interface TokenInfoRouteDeps extends OAuthRouteDeps {
  readonly issuer: string;
  readonly audience: string;
}

type TokenForm = z.output<typeof S.TokenForm>;

/**
 * RFC 7009 §2.1, RFC 7662 §2.1: a hint may only order the search, and the token's own form tells
 * the two kinds apart, so it is not passed on (its schema still refuses a repeated one).
 */
const tokenRequest = (ctx: Context, form: TokenForm) => ({ clientId: clientOf(ctx).clientId, token: form.token });

function introspectionBody(found: Token.Introspection, deps: TokenInfoRouteDeps): Record<string, unknown> {
  if (!found.active) return { active: false };
  return {
    active: true,
    scope: found.scope.join(' '),
    client_id: found.clientId,
    ...(found.clientToken ? {} : { username: found.username }),
    token_type: found.tokenType === 'access_token' ? 'Bearer' : 'refresh_token',
    exp: found.exp,
    iat: found.iat,
    sub: found.subject,
    aud: deps.audience,
    iss: deps.issuer,
    ...(found.jti === undefined ? {} : { jti: found.jti }),
  };
}

const tag = 'secured';
/** The form is validated before the handler, its errors RFC 6749 §5.2's, not the `validation` problem. */
const tokenForm = oauthForm(S.TokenForm);
const introspection = (path: string, summary: string, description: string) =>
  ({
    method: 'POST',
    path,
    tag,
    summary,
    body: tokenForm,
    replies: { 200: { description, schema: S.Introspection } },
  }) satisfies Declared;

/**
 * RFC 7009 revocation, and RFC 7662 introspection (also at Spring's /oauth/check_token) for
 * confidential clients only.
 */
export function oauthRevokeIntrospectRoutes(deps: TokenInfoRouteDeps): Route[] {
  const introspect = async function introspectToken(
    ctx: Context,
    { body }: { readonly body: TokenForm },
  ): Promise<void> {
    const found = replyValue(await ask(deps.token, Token.introspect(tokenRequest(ctx, body)), deps.askTimeoutMs));
    ctx.body = introspectionBody(found, deps);
  };
  return [
    route(
      {
        method: 'POST',
        path: '/oauth/revoke',
        access: CLIENT,
        tag,
        summary: 'Revoke a token: it stops working (RFC 7009)',
        body: tokenForm,
        replies: { 200: { description: 'Revoked, or unknown', schema: z.object({}) } },
        errors: ['client.mismatch'],
      },
      async function revokeToken(ctx, { body }) {
        const request = tokenRequest(ctx, body);
        replyValue(await ask(deps.token, Token.revoke(request), deps.askTimeoutMs));
        securityEvent(deps.logger, ctx, 'token.revoked', { clientId: request.clientId });
        ctx.status = 200;
        ctx.body = {};
      },
    ),
    // RFC 7662 §2.1: the introspection endpoint needs client authentication (the discovery
    // document lists no `none` for it); a public client may still revoke its own tokens (RFC 7009 §2.1).
    route(
      {
        ...introspection(
          '/oauth/introspect',
          'Whether a token is active, and what it grants (RFC 7662)',
          'Active with its claims, or inactive',
        ),
        access: CONFIDENTIAL_CLIENT,
      },
      introspect,
    ),
    route(
      {
        ...introspection(
          '/oauth/check_token',
          'Whether a token is active, and what it grants: the older path of /oauth/introspect',
          'As /oauth/introspect',
        ),
        access: CONFIDENTIAL_CLIENT,
      },
      introspect,
    ),
  ];
}

import Router from '@koa/router';
import type { Context } from 'koa';
import * as Token from '../../actors/token/protocol.ts';
import { ask } from '../../src/messaging/ask.ts';
import { formBody, formParams } from '../middleware/body.ts';
import { authenticateClient, noStoreNoQueryCredentials, required, single, type OAuthDeps } from '../oauth-client.ts';
import { OAuthError } from '../problems.ts';
import type { AppState } from '../state.ts';

export interface TokenInfoDeps extends OAuthDeps {
  readonly issuer: string;
  readonly audience: string;
}


async function tokenRequest(ctx: Context, deps: OAuthDeps) {
  const params = formParams(ctx);
  const client = await authenticateClient(ctx, params, deps);
  // RFC 7009 §2.1, RFC 7662 §2.1: a hint may only order the search, and the token's own form tells
  // the two kinds apart, so it is not passed on; it must still not be repeated.
  single(params, 'token_type_hint');
  return { clientId: client.clientId, token: required(params, 'token') };
}

function introspectionBody(found: Token.Introspection, deps: TokenInfoDeps): Record<string, unknown> {
  if (!found.active) return { active: false };
  return {
    active: true, scope: found.scope.join(' '), client_id: found.clientId, username: found.username,
    token_type: found.tokenType === 'access_token' ? 'Bearer' : 'refresh_token', exp: found.exp, iat: found.iat,
    sub: found.username, aud: deps.audience, iss: deps.issuer, ...(found.jti === undefined ? {} : { jti: found.jti }),
  };
}

/** RFC 7009 revocation and RFC 7662 introspection (also at Spring's /oauth/check_token). */
export function oauthTokenRoutes(deps: TokenInfoDeps): Router<AppState> {
  const router = new Router<AppState>();
  const form = formBody(deps.maxBodyBytes);

  router.post('/oauth/revoke', noStoreNoQueryCredentials, form, async function revokeToken(ctx) {
    const reply = await ask(deps.token, Token.revoke(await tokenRequest(ctx, deps)), deps.askTimeoutMs);
    if (!reply.ok && reply.code === 'client.mismatch') throw new OAuthError(400, 'unauthorized_client', reply.message);
    if (!reply.ok) throw new Error(reply.message);
    ctx.status = 200;
    ctx.body = {};
  });

  const introspect = async function introspectToken(ctx: Context): Promise<void> {
    const reply = await ask(deps.token, Token.introspect(await tokenRequest(ctx, deps)), deps.askTimeoutMs);
    if (!reply.ok) throw new Error(reply.message);
    ctx.body = introspectionBody(reply.value, deps);
  };
  router.post('/oauth/introspect', noStoreNoQueryCredentials, form, introspect);
  router.post('/oauth/check_token', noStoreNoQueryCredentials, form, introspect);
  return router;
}

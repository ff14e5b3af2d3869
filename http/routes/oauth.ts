import Router from '@koa/router';
import type { Context } from 'koa';
import * as Token from '../../actors/token/protocol.ts';
import { ask } from '../../src/messaging/ask.ts';
import type { Ref } from '../../src/messaging/nact.ts';
import { parseBasic, type ClientCredentials } from '../../src/security/clients.ts';
import { formBody, formParams } from '../middleware/body.ts';
import { OAUTH_ERROR, OAuthError, statusOfReply } from '../problems.ts';
import type { AppState } from '../state.ts';

export interface OAuthDeps {
  readonly token: Ref<Token.Command>;
  readonly realm: string;
  readonly askTimeoutMs: number;
  readonly maxBodyBytes: number;
}

const QUERY_CREDENTIALS = ['client_id', 'client_secret', 'username', 'password', 'refresh_token'];
const SCOPE_TOKEN = /^[\x21\x23-\x5B\x5D-\x7E]+$/;

const invalidRequest = (description: string): OAuthError => new OAuthError(400, 'invalid_request', description);

function invalidClient(realm: string, description: string): OAuthError {
  return new OAuthError(401, 'invalid_client', description, { 'WWW-Authenticate': `Basic realm="${realm}"` });
}

/** One value per parameter (RFC 6749 §3.2): a repeated one is an invalid request. */
function single(params: URLSearchParams, name: string): string | undefined {
  const values = params.getAll(name);
  if (values.length > 1) throw invalidRequest(`Parameter ${name} is repeated`);
  return values[0];
}

function required(params: URLSearchParams, name: string): string {
  const value = single(params, name);
  if (value === undefined || value === '') throw invalidRequest(`Missing parameter: ${name}`);
  return value;
}

/** HTTP Basic, or client_id + client_secret in the body; never both, never in the query. */
function clientCredentials(ctx: Context, params: URLSearchParams, realm: string): ClientCredentials {
  const header = ctx.get('Authorization');
  const bodyId = single(params, 'client_id');
  const bodySecret = single(params, 'client_secret');
  if (header !== '' && bodySecret !== undefined) throw invalidRequest('Use one client authentication method, not two');
  if (header !== '') {
    const basic = parseBasic(header);
    if (!basic) throw invalidClient(realm, 'Malformed client credentials');
    if (bodyId !== undefined && bodyId !== basic.clientId) throw invalidRequest('client_id does not match the authenticated client');
    return basic;
  }
  if (bodyId === undefined || bodySecret === undefined) throw invalidClient(realm, 'Client authentication is required');
  return { clientId: bodyId, clientSecret: bodySecret };
}

function parseScope(params: URLSearchParams): string[] | undefined {
  const raw = single(params, 'scope');
  if (raw === undefined) return undefined;
  const scope = [...new Set(raw.split(' ').filter(Boolean))];
  if (scope.length === 0 || !scope.every((s) => SCOPE_TOKEN.test(s))) throw new OAuthError(400, 'invalid_scope', 'Malformed scope');
  return scope;
}

function grantRequest(params: URLSearchParams, clientId: string) {
  const grantType = required(params, 'grant_type');
  const scope = parseScope(params);
  if (grantType === 'password') {
    return Token.issueToken({ clientId, username: required(params, 'username'), password: required(params, 'password'), scope });
  }
  if (grantType === 'refresh_token' || grantType === 'refresh-token') {
    return Token.refresh({ clientId, refreshToken: required(params, 'refresh_token'), scope });
  }
  throw new OAuthError(400, 'unsupported_grant_type', `Unsupported grant type: ${grantType.slice(0, 64)}`);
}

function tokenBody(grant: Token.TokenGrant): Record<string, string | number> {
  return {
    access_token: grant.accessToken, token_type: grant.tokenType,
    ...(grant.refreshToken === undefined ? {} : { refresh_token: grant.refreshToken }),
    expires_in: grant.expiresIn, scope: grant.scope.join(' '), jti: grant.jti,
  };
}

/** POST /oauth/token: the password and refresh_token grants (RFC 6749 §4.3, §6). */
export function oauthRoutes(deps: OAuthDeps): Router<AppState> {
  const router = new Router<AppState>();
  router.post('/oauth/token', async function noStore(ctx, next) {
    ctx.set({ 'Cache-Control': 'no-store', Pragma: 'no-cache' });
    const query = new URLSearchParams(ctx.querystring);
    if (QUERY_CREDENTIALS.some((name) => query.has(name))) throw invalidRequest('Credentials are not accepted in the query string');
    await next();
  }, formBody(deps.maxBodyBytes), async function token(ctx) {
    const params = formParams(ctx);
    const credentials = clientCredentials(ctx, params, deps.realm);
    const client = await ask(deps.token, Token.authenticateClient(credentials.clientId, credentials.clientSecret), deps.askTimeoutMs);
    if (!client.ok) {
      if (client.code === 'client.invalid') throw invalidClient(deps.realm, 'Bad client credentials');
      throw new Error(client.message);
    }
    const reply = await ask(deps.token, grantRequest(params, client.value.clientId), deps.askTimeoutMs);
    if (!reply.ok) {
      const error = OAUTH_ERROR[reply.code];
      if (error === undefined) throw new Error(reply.message);
      throw new OAuthError(statusOfReply(reply.code), error, reply.message);
    }
    ctx.body = tokenBody(reply.value);
  });
  return router;
}

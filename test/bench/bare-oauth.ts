/**
 * The baselines of the machine-to-machine claims (18, 19): the essential work of two OAuth
 * endpoints as bare Koa handlers, with the server's MAC key, issuer, audience and client:
 * - POST /oauth/token, `grant_type=client_credentials`: the client's Basic credentials checked
 *   (BCrypt once, then by the SHA-256 of what matched, as the server keeps them), one `jose`
 *   signature of the claims the server signs, and its JSON;
 * - POST /oauth/introspect: the same credential check, one `jose` verification of the token, and
 *   the server's RFC 7662 JSON.
 * Loaded by `bare-server.ts` when BARE_SIGNING_KEY is set, with BARE_CLIENTS_FILE (a
 * `security.clients-file`), BARE_TOKEN_ISSUER, BARE_TOKEN_AUDIENCE and BARE_TOKEN_VALIDITY (seconds).
 */
import { randomUUID } from 'node:crypto';
import { jwtVerify, SignJWT } from 'jose';
import type { Middleware } from 'koa';
import type { AppState } from '../../http/state.ts';
import { loadConfiguredKey } from '../../src/composition/configured-keys.ts';
import { cachedClientCheck, formOf, readRegistered, required, type Registered } from './bare-clients.ts';

export async function bareOAuth(env: NodeJS.ProcessEnv): Promise<Middleware<AppState>> {
  const key = await loadConfiguredKey(required(env, 'BARE_SIGNING_KEY'), 256, 'security.signing-key');
  const authenticate = cachedClientCheck(readRegistered(required(env, 'BARE_CLIENTS_FILE')));
  const issuer = required(env, 'BARE_TOKEN_ISSUER');
  const audience = required(env, 'BARE_TOKEN_AUDIENCE');
  const validity = Number(required(env, 'BARE_TOKEN_VALIDITY'));

  const token = async (client: Registered, params: URLSearchParams) => {
    const scope = params.get('scope') ?? client.scope;
    const iat = Math.floor(Date.now() / 1000);
    const jti = randomUUID();
    const signed = await new SignJWT({ client_id: client.client_id, scope, authorities: [] })
      .setProtectedHeader({ alg: key.alg, typ: 'at+jwt', kid: key.kid })
      .setIssuer(issuer)
      .setSubject(client.client_id)
      .setAudience(audience)
      .setIssuedAt(iat)
      .setExpirationTime(iat + validity)
      .setJti(jti)
      .sign(key.signKey);
    return { access_token: signed, token_type: 'Bearer', expires_in: validity, scope, jti };
  };

  const introspect = async (client: Registered, params: URLSearchParams) => {
    try {
      const { payload: p } = await jwtVerify(params.get('token') ?? '', key.verifyKey, {
        typ: 'at+jwt',
        issuer,
        audience,
        algorithms: [key.alg],
        clockTolerance: 30,
        requiredClaims: ['exp', 'iat', 'jti', 'sub'],
      });
      if (p['client_id'] !== client.client_id) return { active: false };
      return {
        active: true,
        scope: p['scope'],
        client_id: p['client_id'],
        ...(p['user_name'] === undefined ? {} : { username: p['user_name'] }),
        token_type: 'Bearer',
        exp: p.exp,
        iat: p.iat,
        sub: p.sub,
        aud: audience,
        iss: issuer,
        jti: p.jti,
      };
    } catch {
      return { active: false };
    }
  };

  return async function bareOAuthEndpoints(ctx, next) {
    if (ctx.method !== 'POST') return next();
    const endpoint = ctx.path === '/oauth/token' ? token : ctx.path === '/oauth/introspect' ? introspect : undefined;
    if (endpoint === undefined) return next();
    ctx.set({ 'Cache-Control': 'no-store', Pragma: 'no-cache' });
    const client = await authenticate(ctx.get('Authorization'));
    if (!client) {
      ctx.status = 401;
      ctx.body = { error: 'invalid_client' };
      return;
    }
    const params = await formOf(ctx.req);
    if (endpoint === token && params.get('grant_type') !== 'client_credentials') {
      ctx.status = 400;
      ctx.body = { error: 'unsupported_grant_type' };
      return;
    }
    ctx.body = await endpoint(client, params);
  };
}

import type { Context, Middleware } from 'koa';
import { InvalidTokenError, type Principal, type TokenVerifier } from '../../src/security/jwt.ts';
import { OAuthError } from '../problems.ts';
import type { AppState } from '../state.ts';

export interface BearerOptions {
  readonly enabled: boolean;
  readonly realm: string;
  readonly verify: TokenVerifier;
}

const B64TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/;

const quote = (s: string): string => `"${s.replace(/["\\]/g, '')}"`;

/** RFC 6750 §3 challenge. */
export function bearerChallenge(realm: string, params: Record<string, string> = {}): string {
  return ['Bearer realm=' + quote(realm), ...Object.entries(params).map(([k, v]) => `${k}=${quote(v)}`)].join(', ');
}

function countAuthorizationHeaders(ctx: Context): number {
  let n = 0;
  for (let i = 0; i < ctx.req.rawHeaders.length; i += 2) if (ctx.req.rawHeaders[i]?.toLowerCase() === 'authorization') n++;
  return n;
}

function invalidRequest(realm: string, description: string): OAuthError {
  return new OAuthError(400, 'invalid_request', description,
    { 'WWW-Authenticate': bearerChallenge(realm, { error: 'invalid_request', error_description: description }) });
}

function invalidToken(realm: string, description: string): OAuthError {
  return new OAuthError(401, 'invalid_token', description,
    { 'WWW-Authenticate': bearerChallenge(realm, { error: 'invalid_token', error_description: description }) });
}

/** The bearer token of the request; throws the contract's 400/401 for every way it can be wrong. */
function extractToken(ctx: Context, realm: string): string {
  if (countAuthorizationHeaders(ctx) > 1) throw invalidRequest(realm, 'Only one Authorization header is allowed');
  if (new URLSearchParams(ctx.querystring).has('access_token')) throw invalidRequest(realm, 'Access tokens are not accepted in the query string');
  const m = /^Bearer(?: +(.*))?$/i.exec(ctx.get('Authorization'));
  if (!m) {
    throw new OAuthError(401, 'unauthorized', 'Full authentication is required to access this resource', { 'WWW-Authenticate': bearerChallenge(realm) });
  }
  const token = (m[1] ?? '').trim();
  if (!B64TOKEN.test(token)) throw invalidToken(realm, 'Access token is malformed');
  return token;
}

/** Resource-server guard: a valid bearer token, or the contract's 400/401 with its challenge. */
export function bearerAuth(options: BearerOptions): Middleware<AppState> {
  return async function authenticateBearer(ctx, next) {
    if (!options.enabled) {
      ctx.state.auth = { enabled: false };
      return next();
    }
    if (ctx.method === 'OPTIONS') return next();
    const token = extractToken(ctx, options.realm);
    let principal: Principal;
    try {
      principal = await options.verify(token);
    } catch (error) {
      if (error instanceof InvalidTokenError) throw invalidToken(options.realm, error.description);
      throw error;
    }
    ctx.state.auth = { enabled: true, principal };
    await next();
  };
}

/** 403 `insufficient_scope` unless the token carries `scope` (RFC 6750 §3.1). */
export function requireScope(scope: string, realm: string): Middleware<AppState> {
  return async function checkScope(ctx, next) {
    const auth = ctx.state.auth;
    if (auth?.enabled && !auth.principal.scope.includes(scope)) {
      const description = `The access token lacks the "${scope}" scope`;
      throw new OAuthError(403, 'insufficient_scope', description,
        { 'WWW-Authenticate': bearerChallenge(realm, { error: 'insufficient_scope', error_description: description, scope }) });
    }
    await next();
  };
}

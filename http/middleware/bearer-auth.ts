import type { Context } from 'koa';
import { InvalidTokenError, type Principal } from '../../src/security/jwt.ts';
import { OAuthError } from '../problems.ts';
import type { Auth } from '../state.ts';

/**
 * Verifies a bearer token. `lookup` (the token cache's) answers at once, without a promise, for a
 * token verified before and still kept, and undefined for any other: a kept token passed the
 * format check then, so it is not scanned again.
 */
export type BearerVerifier = ((token: string) => Promise<Principal>) & {
  readonly lookup?: (token: string) => Principal | undefined;
};

export interface BearerOptions {
  readonly enabled: boolean;
  readonly realm: string;
  readonly verify: BearerVerifier;
}

const B64TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/;

const quote = (s: string): string => `"${s.replace(/["\\]/g, '')}"`;

/** RFC 6750 §3 challenge. */
export function bearerChallenge(realm: string, params: Record<string, string> = {}): string {
  return ['Bearer realm=' + quote(realm), ...Object.entries(params).map(([k, v]) => `${k}=${quote(v)}`)].join(', ');
}

function countAuthorizationHeaders(ctx: Context): number {
  const raw = ctx.req.rawHeaders;
  let n = 0;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i];
    if (name !== undefined && name.length === 13 && name.toLowerCase() === 'authorization') n++;
  }
  return n;
}

/** `Bearer`, in any case, alone or followed by spaces and the token: the token, else undefined. */
function bearerCredentials(header: string): string | undefined {
  if (header.length < 6 || header.slice(0, 6).toLowerCase() !== 'bearer') return undefined;
  if (header.length === 6) return '';
  if (header.charCodeAt(6) !== 0x20) return undefined;
  return header.slice(7).trim();
}

function invalidRequest(realm: string, description: string): OAuthError {
  return new OAuthError(400, 'invalid_request', description, {
    'WWW-Authenticate': bearerChallenge(realm, { error: 'invalid_request', error_description: description }),
  });
}

/** 401 `invalid_token` with its challenge (RFC 6750 §3.1). */
export function invalidToken(realm: string, description: string): OAuthError {
  return new OAuthError(401, 'invalid_token', description, {
    'WWW-Authenticate': bearerChallenge(realm, { error: 'invalid_token', error_description: description }),
  });
}

/**
 * The bearer token of the request, not yet checked for its form; throws the contract's 400/401
 * for every other way it can be wrong.
 */
function extractToken(ctx: Context, realm: string): string {
  if (countAuthorizationHeaders(ctx) > 1) throw invalidRequest(realm, 'Only one Authorization header is allowed');
  const query = ctx.querystring;
  if (query !== '' && new URLSearchParams(query).has('access_token'))
    throw invalidRequest(realm, 'Access tokens are not accepted in the query string');
  const token = bearerCredentials(ctx.req.headers.authorization ?? '');
  if (token === undefined) {
    throw new OAuthError(401, 'unauthorized', 'Full authentication is required to access this resource', {
      'WWW-Authenticate': bearerChallenge(realm),
    });
  }
  return token;
}

/** The resource server's authentication, in two steps (see {@link bearerAuthenticator}). */
export interface BearerAuthenticator {
  /**
   * The decision when it is made at once: security switched off, or a token the verifier knows
   * (the token cache); undefined when only {@link BearerAuthenticator.authenticate} can decide.
   * Throws the contract's 400/401 for a missing or malformed token.
   */
  authenticateNow(ctx: Context): Auth | undefined;
  /** The decision, whatever it takes: the principal (undefined with security off), or the contract's 400/401. */
  authenticate(ctx: Context): Promise<Principal | undefined>;
}

/**
 * The resource server's authentication: a valid bearer token, or the contract's 400/401 with its
 * challenge. The decision is recorded in `ctx.state.auth`; with security switched off there is no
 * principal, and with it on there is always one or an error. The common path (a token the cache
 * keeps) is decided by `authenticateNow`, with no promise per request.
 */
export function bearerAuthenticator(options: BearerOptions): BearerAuthenticator {
  const refused = (error: unknown): never => {
    if (error instanceof InvalidTokenError) throw invalidToken(options.realm, error.description);
    throw error;
  };
  const record = (ctx: Context, auth: Auth): Auth => {
    ctx.state.auth = auth;
    return auth;
  };
  const OFF: Auth = { enabled: false };
  return {
    authenticateNow(ctx) {
      if (!options.enabled) return record(ctx, OFF);
      const principal = options.verify.lookup?.(extractToken(ctx, options.realm));
      return principal && record(ctx, { enabled: true, principal });
    },
    async authenticate(ctx) {
      if (!options.enabled) {
        record(ctx, OFF);
        return undefined;
      }
      const token = extractToken(ctx, options.realm);
      if (!B64TOKEN.test(token)) throw invalidToken(options.realm, 'Access token is malformed');
      const principal = await options.verify(token).catch(refused);
      record(ctx, { enabled: true, principal });
      return principal;
    },
  };
}

/** 403 `insufficient_scope` with its challenge (RFC 6750 §3.1). */
export function insufficientScope(realm: string, scope: string): OAuthError {
  const description = `The access token lacks the "${scope}" scope`;
  return new OAuthError(403, 'insufficient_scope', description, {
    'WWW-Authenticate': bearerChallenge(realm, { error: 'insufficient_scope', error_description: description, scope }),
  });
}

/**
 * 403 `insufficient_scope` with its challenge (RFC 6750 §3.1: the request needs more privileges
 * than the token gives) for a self-service route and a token issued to a client that is not one of
 * the service's own applications. No `scope` is named: no scope the client could ask for helps.
 */
export function notFirstParty(realm: string): OAuthError {
  const description = "Only the service's own applications may manage the account's password and consents";
  return new OAuthError(403, 'insufficient_scope', description, {
    'WWW-Authenticate': bearerChallenge(realm, { error: 'insufficient_scope', error_description: description }),
  });
}

/**
 * 403 `access_denied` of post-authorization (Spring's `@PostAuthorize`, declared on a route as
 * `role(name)`): the handler ran, its result is discarded. No challenge: the token is fine, the
 * role is missing.
 */
export const accessDenied = (): OAuthError => new OAuthError(403, 'access_denied', 'Access is denied');

/** Access tokens: JWS with `typ: at+jwt`, signed and verified with the configured key only. */
import { randomUUID } from 'node:crypto';
import { errors, jwtVerify, SignJWT, type JWTPayload } from 'jose';
import type { Revocable } from './denylist.ts';
import type { SigningKey } from './keys.ts';

export interface TokenSettings {
  readonly issuer: string;
  /** The resource id: the `aud` of every token. */
  readonly audience: string;
  /** Seconds. */
  readonly validity: number;
}

/** Who a valid access token speaks for. */
export interface Principal {
  readonly username: string;
  readonly clientId: string;
  readonly scope: readonly string[];
  readonly authorities: readonly string[];
  readonly jti: string;
  /** Epoch seconds. */
  readonly exp: number;
  readonly iat: number;
  /** The login the token was issued in (`sid`): revoking the login refuses all of its tokens. */
  readonly loginId: string | undefined;
  /** A client_credentials token (no `user_name` claim): `username` is the client's id, no user's. */
  readonly clientToken?: boolean;
}

export interface IssuedToken {
  readonly token: string;
  readonly jti: string;
  readonly iat: number;
  readonly exp: number;
}

export interface TokenRequest {
  readonly username: string;
  readonly clientId: string;
  readonly scope: readonly string[];
  readonly authorities: readonly string[];
  /** Names the login (password grant) every token of it carries, as `sid`; none for a client's own token. */
  readonly loginId: string | undefined;
  /** client_credentials: `sub` is the client, and no `user_name` claim says it is a user. */
  readonly clientToken?: boolean;
}

/** Allowed clock skew for `exp`, `nbf` and `iat`, seconds. */
export const CLOCK_SKEW = 30;

export function createTokenSigner(key: SigningKey, settings: TokenSettings) {
  return async function signAccessToken(req: TokenRequest, nowMs = Date.now()): Promise<IssuedToken> {
    const iat = Math.floor(nowMs / 1000);
    const exp = iat + settings.validity;
    const jti = randomUUID();
    const token = await new SignJWT({
      client_id: req.clientId,
      scope: req.scope.join(' '),
      user_name: req.clientToken === true ? undefined : req.username,
      authorities: [...req.authorities],
      sid: req.loginId,
    })
      .setProtectedHeader({ alg: key.alg, typ: 'at+jwt', kid: key.kid })
      .setIssuer(settings.issuer)
      .setSubject(req.username)
      .setAudience(settings.audience)
      .setIssuedAt(iat)
      .setExpirationTime(exp)
      .setJti(jti)
      .sign(key.signKey);
    return { token, jti, iat, exp };
  };
}

/** The token is not acceptable; `description` is safe to send to the client. */
export class InvalidTokenError extends Error {
  override readonly name = 'InvalidTokenError';
  readonly description: string;
  constructor(description: string) {
    super(description);
    this.description = description;
  }
}

function describe(error: unknown): string {
  if (error instanceof errors.JWTExpired) return 'Access token expired';
  if (error instanceof errors.JWTClaimValidationFailed) return `Access token claim "${error.claim}" is not acceptable`;
  if (error instanceof errors.JOSEAlgNotAllowed) return 'Access token algorithm is not accepted';
  if (error instanceof errors.JWSSignatureVerificationFailed) return 'Access token signature is invalid';
  return 'Access token is malformed';
}

const strings = (v: unknown): v is string[] => Array.isArray(v) && v.every((x) => typeof x === 'string');

function toPrincipal(p: JWTPayload, nowSeconds: number): Principal {
  if (typeof p.iat !== 'number' || p.iat > nowSeconds + CLOCK_SKEW)
    throw new InvalidTokenError('Access token claim "iat" is not acceptable');
  const { sub, jti, exp, iat } = p;
  const clientId = p['client_id'];
  const scope = p['scope'];
  const authorities = p['authorities'] ?? [];
  const sid = p['sid'];
  if (
    typeof sub !== 'string' ||
    typeof jti !== 'string' ||
    typeof exp !== 'number' ||
    typeof clientId !== 'string' ||
    typeof scope !== 'string' ||
    !strings(authorities) ||
    (sid !== undefined && typeof sid !== 'string')
  ) {
    throw new InvalidTokenError('Access token claims are incomplete');
  }
  const principal = { username: sub, clientId, scope: scope.split(' ').filter(Boolean), authorities, jti, exp, iat };
  return p['user_name'] === undefined
    ? { ...principal, loginId: sid, clientToken: true }
    : { ...principal, loginId: sid };
}

/** `isRevoked` (the token, or its login) is consulted for every token that otherwise verifies. */
export function createTokenVerifier(
  key: SigningKey,
  settings: TokenSettings,
  isRevoked: (token: Revocable) => boolean | Promise<boolean> = () => false,
) {
  const options = {
    algorithms: [key.alg],
    typ: 'at+jwt',
    issuer: settings.issuer,
    audience: settings.audience,
    clockTolerance: CLOCK_SKEW,
    requiredClaims: ['exp', 'iat', 'jti', 'sub'],
  };
  return async function verifyAccessToken(token: string, nowMs = Date.now()): Promise<Principal> {
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, key.verifyKey, { ...options, currentDate: new Date(nowMs) }));
    } catch (error) {
      throw new InvalidTokenError(describe(error));
    }
    const principal = toPrincipal(payload, Math.floor(nowMs / 1000));
    // Longer-lived than any token this server issues: not one of ours, whatever its signature says.
    if (principal.exp - principal.iat > settings.validity + CLOCK_SKEW)
      throw new InvalidTokenError('Access token lifetime is longer than this server issues');
    if (await isRevoked(principal)) throw new InvalidTokenError('Access token revoked');
    return principal;
  };
}

export type TokenSigner = ReturnType<typeof createTokenSigner>;
export type TokenVerifier = ReturnType<typeof createTokenVerifier>;

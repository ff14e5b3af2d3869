/**
 * Access tokens: JWS with `typ: at+jwt` and the signing key's `kid`, signed with the key that signs
 * now and verified with the one key its `kid` names (never by trying each), in that key's algorithm.
 */
import { epochSeconds } from './epoch.ts';
import { randomUUID } from 'node:crypto';
import { decodeProtectedHeader, errors, jwtVerify, SignJWT, type JWTPayload } from 'jose';
import type { Revocable } from './denylist.ts';
import type { UsableKey } from './key-material.ts';
import { accountSubject } from './subjects.ts';

export interface TokenSettings {
  readonly issuer: string;
  /** The resource id: the `aud` of every token. */
  readonly audience: string;
  /** Seconds. */
  readonly validity: number;
}

/** Who an access token speaks for and what it allows: alike in the request to sign one and in a verified one. */
export interface TokenSubject {
  readonly username: string;
  readonly clientId: string;
  readonly scope: readonly string[];
  readonly authorities: readonly string[];
  /**
   * The login the token was issued in (`sid`), which every token of it carries: revoking the login
   * refuses all of its tokens. None for a client's own token.
   */
  readonly loginId: string | undefined;
  /**
   * A client_credentials token: `username` is the client's id, its `sub`, and no `user_name` claim
   * names an account. An account's token says the account's username in `user_name` and its
   * subject (`src/security/subjects.ts`) in `sub`.
   */
  readonly clientToken?: boolean;
}

/** A token's id (`jti`) and its times in epoch seconds (`iat`, `exp`), as signed and as verified. */
export interface TokenStamp {
  readonly jti: string;
  readonly iat: number;
  readonly exp: number;
}

/** Who a valid access token speaks for. */
export interface Principal extends TokenSubject, TokenStamp {
  /** The token's `sub`: an account's subject (`account:<id>`), or a client's id for its own token. */
  readonly subject: string;
  /** The key that signed it: a key taken out of the set refuses all of its tokens. */
  readonly kid: string;
  /**
   * The account the token was minted from (`account_id`) and the account's security version then
   * (`account_version`): refused once the version moves. Undefined only in a client's own token.
   */
  readonly accountId?: number | undefined;
  readonly accountVersion?: number | undefined;
}

export interface IssuedToken extends TokenStamp {
  readonly token: string;
}

export interface TokenRequest extends TokenSubject {
  /** The account read and its security version then; none for a client's own token. */
  readonly account?: { readonly id: number; readonly version: number } | undefined;
}

/** The `sub` of a token: the account's subject, or the client's id for its own token; an account token names its account. */
function subjectOf(req: TokenRequest): string {
  if (req.clientToken === true) return req.username;
  if (req.account === undefined) throw new Error('an account token names no account');
  return accountSubject(req.account.id);
}

/** Allowed clock skew for `exp`, `nbf` and `iat`, seconds. */
export const CLOCK_SKEW = 30;

/** `signingKey` answers the key that signs now (it changes with a rotation). */
export function createTokenSigner(signingKey: () => Promise<UsableKey>, settings: TokenSettings) {
  return async function signAccessToken(req: TokenRequest, nowMs = Date.now()): Promise<IssuedToken> {
    const key = await signingKey();
    const iat = epochSeconds(nowMs);
    const exp = iat + settings.validity;
    const jti = randomUUID();
    const token = await new SignJWT({
      client_id: req.clientId,
      scope: req.scope.join(' '),
      user_name: req.clientToken === true ? undefined : req.username,
      authorities: [...req.authorities],
      sid: req.loginId,
      account_id: req.account?.id,
      account_version: req.account?.version,
    })
      .setProtectedHeader({ alg: key.alg, typ: 'at+jwt', kid: key.kid })
      .setIssuer(settings.issuer)
      .setSubject(subjectOf(req))
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
const count = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;

function toPrincipal(p: JWTPayload, nowSeconds: number, kid: string): Principal {
  if (typeof p.iat !== 'number' || p.iat > nowSeconds + CLOCK_SKEW)
    throw new InvalidTokenError('Access token claim "iat" is not acceptable');
  const { sub, jti, exp, iat } = p;
  const clientId = p['client_id'];
  const scope = p['scope'];
  const authorities = p['authorities'] ?? [];
  const sid = p['sid'];
  const userName = p['user_name'];
  if (
    typeof sub !== 'string' ||
    (userName !== undefined && typeof userName !== 'string') ||
    typeof jti !== 'string' ||
    typeof exp !== 'number' ||
    typeof clientId !== 'string' ||
    typeof scope !== 'string' ||
    !strings(authorities) ||
    (sid !== undefined && typeof sid !== 'string')
  ) {
    throw new InvalidTokenError('Access token claims are incomplete');
  }
  const principal = {
    // An account's username; a client's own token names the client alone.
    username: userName ?? sub,
    subject: sub,
    clientId,
    scope: scope.split(' ').filter(Boolean),
    authorities,
    jti,
    exp,
    iat,
    kid,
  };
  if (userName === undefined) return { ...principal, loginId: sid, clientToken: true };
  // An account's token is honoured only as long as the account it was minted from is at that version.
  const accountId = p['account_id'];
  const accountVersion = p['account_version'];
  if (!count(accountId) || accountId === 0 || !count(accountVersion))
    throw new InvalidTokenError('Access token names no account');
  return { ...principal, loginId: sid, accountId, accountVersion };
}

/** Finds the key a token's `kid` names, if it verifies now. */
export type KeyLookup = (kid: string) => Promise<UsableKey | undefined>;

/** The key the token's header names; a token naming none, or one not in the set, is refused. */
async function keyOf(token: string, lookup: KeyLookup): Promise<UsableKey> {
  let kid: unknown;
  try {
    ({ kid } = decodeProtectedHeader(token));
  } catch {
    throw new InvalidTokenError('Access token is malformed');
  }
  if (typeof kid !== 'string') throw new InvalidTokenError('Access token names no key (kid)');
  const key = await lookup(kid);
  if (key === undefined) throw new InvalidTokenError('Access token key is unknown or retired');
  return key;
}

/**
 * Told of a token signed with a key of the set that names another issuer (its `iss` as it is, or
 * undefined when it names none): processes sharing the keys but not `security.jwt.issuer`.
 */
export type ForeignIssuer = (presented: string | undefined) => void;

/** The `iss` a refused token presented, when `iss` is what was refused; the signature held (jose checks it first). */
function foreignIssuer(error: unknown): { presented: string | undefined } | undefined {
  if (!(error instanceof errors.JWTClaimValidationFailed) || error.claim !== 'iss') return undefined;
  const iss = error.payload['iss'];
  return { presented: typeof iss === 'string' ? iss.slice(0, 256) : undefined };
}

/**
 * `isRevoked` (the token, or its login) is consulted for every token that otherwise verifies;
 * `onForeignIssuer` hears of each token refused for its `iss` alone.
 */
export function createTokenVerifier(
  lookup: KeyLookup,
  settings: TokenSettings,
  isRevoked: (token: Revocable) => Promise<boolean> = async () => false,
  onForeignIssuer: ForeignIssuer = () => undefined,
) {
  const options = {
    typ: 'at+jwt',
    issuer: settings.issuer,
    audience: settings.audience,
    clockTolerance: CLOCK_SKEW,
    requiredClaims: ['exp', 'iat', 'jti', 'sub'],
  };
  return async function verifyAccessToken(token: string, nowMs = Date.now()): Promise<Principal> {
    const key = await keyOf(token, lookup);
    let payload: JWTPayload;
    try {
      const at = { ...options, algorithms: [key.alg], currentDate: new Date(nowMs) };
      ({ payload } = await jwtVerify(token, key.verifyKey, at));
    } catch (error) {
      const foreign = foreignIssuer(error);
      if (foreign) onForeignIssuer(foreign.presented);
      throw new InvalidTokenError(describe(error));
    }
    const principal = toPrincipal(payload, epochSeconds(nowMs), key.kid);
    // Longer-lived than any token this server issues: not one of ours, whatever its signature says.
    if (principal.exp - principal.iat > settings.validity + CLOCK_SKEW)
      throw new InvalidTokenError('Access token lifetime is longer than this server issues');
    if (await isRevoked(principal)) throw new InvalidTokenError('Access token revoked');
    return principal;
  };
}

export type TokenSigner = ReturnType<typeof createTokenSigner>;
export type TokenVerifier = ReturnType<typeof createTokenVerifier>;

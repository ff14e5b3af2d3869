/**
 * OpenID Connect id_tokens (Core §2, §3.1.3.6, §12.2): a JWS with `typ: JWT` and the `kid` of the
 * active key of the id_token lineage, never of the access-token keys. It says who signed in and
 * when, to the client alone: `iss`, `sub` (the account's subject), `aud` (the client), `exp`,
 * `iat`, `auth_time`, `nonce` when the authorization request sent one, and `at_hash` of the access
 * token issued with it. No profile or email claim: those are UserInfo's (as node-oidc-provider
 * does by default). `azp` is left out: the audience is the one client, which is then the
 * authorized party (Core §2).
 */
import { createHash } from 'node:crypto';
import { compactVerify, decodeProtectedHeader, errors, SignJWT } from 'jose';
import type { KeyAlg } from '../stores/key-store.ts';
import { epochSeconds } from './epoch.ts';
import type { UsableKey } from './key-material.ts';
import type { KeyRing } from './key-ring.ts';

export interface IdTokenSettings {
  /** `iss`: the issuer, as the access tokens and the metadata name it. */
  readonly issuer: string;
  /** Seconds from `iat` to `exp`: the access tokens' validity. */
  readonly validity: number;
}

export interface IdTokenRequest {
  /** `sub`: the account's subject (`account:<id>`, src/security/subjects.ts). */
  readonly subject: string;
  /** `aud`: the client the token is issued to. */
  readonly clientId: string;
  /** `auth_time`: when the account's password was checked at the sign-in, epoch seconds. */
  readonly authTime: number;
  /** The authorization request's `nonce`; none on a refresh, or when none was sent. */
  readonly nonce?: string | undefined;
  /** The access token issued with it, which `at_hash` names. */
  readonly accessToken: string;
}

/** The hash of each algorithm's signature, which `at_hash` uses too. */
const HASHES: { readonly [A in KeyAlg]: 'sha256' | 'sha384' | 'sha512' } = {
  ES256: 'sha256',
  RS256: 'sha256',
  HS256: 'sha256',
  ES384: 'sha384',
  RS384: 'sha384',
  HS384: 'sha384',
  ES512: 'sha512',
  RS512: 'sha512',
  HS512: 'sha512',
};

/**
 * Core §3.1.3.6: the left half of the hash of the access token's ASCII octets, by the hash of the
 * id_token's algorithm (SHA-256 for RS256), base64url.
 */
export function atHash(accessToken: string, alg: KeyAlg): string {
  const digest = createHash(HASHES[alg]).update(accessToken, 'ascii').digest();
  return digest.subarray(0, digest.length / 2).toString('base64url');
}

/** `signingKey` answers the id_token lineage's key that signs now (it changes with a rotation). */
export function createIdTokenSigner(signingKey: () => Promise<UsableKey>, settings: IdTokenSettings) {
  return async function signIdToken(req: IdTokenRequest, nowMs = Date.now()): Promise<string> {
    const key = await signingKey();
    const iat = epochSeconds(nowMs);
    return new SignJWT({ auth_time: req.authTime, nonce: req.nonce, at_hash: atHash(req.accessToken, key.alg) })
      .setProtectedHeader({ alg: key.alg, typ: 'JWT', kid: key.kid })
      .setIssuer(settings.issuer)
      .setSubject(req.subject)
      .setAudience(req.clientId)
      .setIssuedAt(iat)
      .setExpirationTime(iat + settings.validity)
      .sign(key.signKey);
  };
}

export type IdTokenSigner = ReturnType<typeof createIdTokenSigner>;

/** What an `id_token_hint` says, once it proved to be an id_token of this server. */
export interface Hint {
  /** `sub`: the account's subject. */
  readonly subject: string;
  /** `aud`: the client (or clients) it was issued to. */
  readonly audience: readonly string[];
}

/**
 * An id_token this server issued, given back as an `id_token_hint` (Core §3.1.2.1, RP-Initiated
 * Logout 1.0 §2): its signature checked with an id_token key that verifies now (so never `alg:
 * none`, an access token, or a token of another signer), its issuer this one's; its expiry is not
 * checked (a hint may be an id_token that has expired). Undefined for a hint that is not such an
 * id_token; a key set that cannot be read throws, as it does for every token.
 */
export async function readHint(
  hint: string,
  keys: Pick<KeyRing, 'verifying'>,
  issuer: string,
): Promise<Hint | undefined> {
  let kid: unknown;
  try {
    kid = decodeProtectedHeader(hint).kid;
  } catch {
    return undefined;
  }
  const key = typeof kid === 'string' ? await keys.verifying(kid) : undefined;
  if (key === undefined) return undefined;
  try {
    const { payload } = await compactVerify(hint, key.verifyKey, { algorithms: [key.alg] });
    const claims: unknown = JSON.parse(new TextDecoder().decode(payload));
    if (typeof claims !== 'object' || claims === null) return undefined;
    const { iss, sub, aud } = claims as { iss?: unknown; sub?: unknown; aud?: unknown };
    const audience = typeof aud === 'string' ? [aud] : Array.isArray(aud) ? aud : [];
    if (iss !== issuer || typeof sub !== 'string' || !audience.every((a) => typeof a === 'string')) return undefined;
    return { subject: sub, audience: audience as string[] };
  } catch (error) {
    if (error instanceof errors.JOSEError || error instanceof SyntaxError) return undefined;
    throw error;
  }
}

/** The subject of an id_token this server issued, given back as an `id_token_hint` ({@link readHint}). */
export async function hintedSubject(
  hint: string,
  keys: Pick<KeyRing, 'verifying'>,
  issuer: string,
): Promise<string | undefined> {
  return (await readHint(hint, keys, issuer))?.subject;
}

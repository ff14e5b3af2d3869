/** PKCE (RFC 7636) with S256 only, and the form of authorization codes. */
import { hash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Client } from './clients.ts';

/** RFC 7636 §4.1: 43 to 128 unreserved characters. */
export const isCodeVerifier = (v: string): boolean => /^[A-Za-z0-9._~-]{43,128}$/.test(v);

/** An S256 challenge is the base64url SHA-256 of a verifier: 43 characters. */
export const isS256Challenge = (c: string): boolean => /^[A-Za-z0-9_-]{43}$/.test(c);

export const s256 = (verifier: string): string => hash('sha256', verifier, 'base64url');

/** Whether `verifier` is the one `challenge` was made from, compared in constant time. */
export function verifierMatches(verifier: string, challenge: string): boolean {
  const made = Buffer.from(s256(verifier));
  const expected = Buffer.from(challenge);
  return made.length === expected.length && timingSafeEqual(made, expected);
}

/** Why a code may not be issued without a challenge: the authorization endpoint's `invalid_request`. */
export const PKCE_REQUIRED = 'PKCE is required: missing code_challenge';

/**
 * Whether a code may be issued without a PKCE challenge: only to a confidential client registered
 * with `pkce_required: false`, in an OpenID request (its scope names `openid`) that sends a nonce,
 * which the client checks in the id_token as PKCE would be checked (RFC 9700 §2.1.1).
 */
export const mayOmitChallenge = (
  client: Pick<Client, 'pkceRequired' | 'secretHash'>,
  scope: readonly string[] | undefined,
  nonce: string | undefined,
): boolean =>
  client.pkceRequired === false &&
  client.secretHash !== undefined &&
  nonce !== undefined &&
  nonce !== '' &&
  scope?.includes('openid') === true;

/** Authorization codes: 256 random bits, base64url; stored only as their SHA-256 (`hashToken`). */
export const newAuthorizationCode = (): string => randomBytes(32).toString('base64url');

export const looksLikeAuthorizationCode = (code: string): boolean => /^[A-Za-z0-9_-]{43}$/.test(code);

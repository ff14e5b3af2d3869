/** PKCE (RFC 7636) with S256 only, and the form of authorization codes. */
import { hash, randomBytes, timingSafeEqual } from 'node:crypto';

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

/** Authorization codes: 256 random bits, base64url; stored only as their SHA-256 (`hashToken`). */
export const newAuthorizationCode = (): string => randomBytes(32).toString('base64url');

export const looksLikeAuthorizationCode = (code: string): boolean => /^[A-Za-z0-9_-]{43}$/.test(code);

/** Opaque refresh tokens: 256 random bits, stored only as a SHA-256 hash. */
import { hash, randomBytes } from 'node:crypto';

export const newRefreshToken = (): string => randomBytes(32).toString('base64url');

export const hashToken = (token: string): string => hash('sha256', token, 'base64url');

/** Refresh tokens are base64url, 43 characters; anything else cannot be one of ours. */
export const looksLikeRefreshToken = (token: string): boolean => /^[A-Za-z0-9_-]{43}$/.test(token);

/**
 * The key a login without refresh tokens (its client lacks the refresh_token grant) is recorded
 * under, in place of a token's hash: a hash is 43 base64url characters and this has a colon, so no
 * token presented anywhere (the refresh grant, revocation, introspection) can ever find it.
 */
export const tokenlessLoginKey = (loginId: string): string => `login:${loginId}`;

/** Opaque refresh tokens: 256 random bits, stored only as a SHA-256 hash. */
import { hash, randomBytes } from 'node:crypto';

export const newRefreshToken = (): string => randomBytes(32).toString('base64url');

export const hashToken = (token: string): string => hash('sha256', token, 'base64url');

/** Refresh tokens are base64url, 43 characters; anything else cannot be one of ours. */
export const looksLikeRefreshToken = (token: string): boolean => /^[A-Za-z0-9_-]{43}$/.test(token);

/**
 * The filters, updates, mappings and indexes that `refresh-token-store.mongo.ts` sends to
 * collection `refresh_tokens`, as pure functions of their inputs: tested on every run against
 * documents, where no MongoDB server is at hand too.
 */
import type { Filter, UpdateFilter } from 'mongodb';
import type { CollectionIndexes } from './mongo.ts';
import type { RefreshTokenRecord } from './refresh-token-store.ts';

export interface RefreshTokenDoc {
  _id: string;
  /** The login's id: the stored name is kept for existing data. */
  familyId: string;
  clientId: string;
  username: string;
  scope: string[];
  issuedAt: number;
  expiresAt: number;
  usedAt: number | null;
  revokedAt: number | null;
  /** Absent on documents written before it was recorded. */
  accessExpiresAt?: number | null;
  /** Absent on documents written before it was recorded (read as 0). */
  generation?: number;
  /** The account (its numeric id) and security version of the login; absent on older documents. */
  accountId?: number | null;
  accountVersion?: number | null;
  /** Absent on documents written before it was recorded. */
  authTime?: number | null;
}

export const refreshTokenDoc = (r: RefreshTokenRecord): RefreshTokenDoc => ({
  _id: r.tokenHash,
  familyId: r.loginId,
  clientId: r.clientId,
  username: r.username,
  scope: [...r.scope],
  issuedAt: r.issuedAt,
  expiresAt: r.expiresAt,
  usedAt: r.usedAt,
  revokedAt: r.revokedAt,
  accessExpiresAt: r.accessExpiresAt,
  generation: r.generation,
  accountId: r.accountId,
  accountVersion: r.accountVersion,
  authTime: r.authTime,
});

export const refreshTokenRecord = (d: RefreshTokenDoc): RefreshTokenRecord => ({
  tokenHash: d._id,
  loginId: d.familyId,
  clientId: d.clientId,
  username: d.username,
  scope: d.scope,
  issuedAt: d.issuedAt,
  expiresAt: d.expiresAt,
  usedAt: d.usedAt,
  revokedAt: d.revokedAt,
  accessExpiresAt: d.accessExpiresAt ?? null,
  generation: d.generation ?? 0,
  accountId: d.accountId ?? null,
  accountVersion: d.accountVersion ?? null,
  authTime: d.authTime ?? null,
});

/** The latest access-token expiry of a login's documents; undefined when one lacks it or there are none. */
export function loginAccessHorizon(docs: readonly Pick<RefreshTokenDoc, 'accessExpiresAt'>[]): number | undefined {
  let latest: number | undefined;
  for (const d of docs) {
    if (typeof d.accessExpiresAt !== 'number') return undefined;
    latest = Math.max(latest ?? d.accessExpiresAt, d.accessExpiresAt);
  }
  return latest;
}

/** The token while it is neither used nor revoked: marking it used wins the rotation exactly once. */
export const unspentToken = (tokenHash: string): Filter<RefreshTokenDoc> => ({
  _id: tokenHash,
  usedAt: null,
  revokedAt: null,
});
/** The unspent token while it belongs to the account at the version its successor names. */
export const unspentAt = (tokenHash: string, next: RefreshTokenRecord): Filter<RefreshTokenDoc> => ({
  ...unspentToken(tokenHash),
  accountId: next.accountId,
  accountVersion: next.accountVersion,
});
export const markUsed = (at: number): UpdateFilter<RefreshTokenDoc> => ({ $set: { usedAt: at } });
export const liveInLogin = (loginId: string): Filter<RefreshTokenDoc> => ({ familyId: loginId, revokedAt: null });
export const markRevoked = (at: number): UpdateFilter<RefreshTokenDoc> => ({ $set: { revokedAt: at } });
export const expiredBefore = (now: number): Filter<RefreshTokenDoc> => ({ expiresAt: { $lt: now } });

export const REFRESH_TOKEN_INDEXES: CollectionIndexes = {
  refresh_tokens: [
    { key: { familyId: 1 }, name: 'refresh_tokens_family' },
    { key: { expiresAt: 1 }, name: 'refresh_tokens_expiry' },
    { key: { username: 1 }, name: 'refresh_tokens_user' },
    { key: { accountId: 1 }, name: 'refresh_tokens_account' },
  ],
};

/**
 * The filters, updates and indexes that `revocation-store.mongo.ts` sends to collection
 * `revocations`, as pure functions of their inputs: tested on every run against documents, where
 * no MongoDB server is at hand too.
 */
import type { Filter, UpdateFilter } from 'mongodb';
import type { CollectionIndexes } from './mongo.ts';
import type { Revocation } from './revocation-store.ts';

export interface RevocationDoc {
  _id: string;
  kind: Revocation['kind'];
  id: string;
  expiresAt: number;
  addedAt: Date;
  /** For a token: the login it was issued in, when it has one. */
  loginId?: string;
  /** For an account: its tokens minted at a security version below this are refused. */
  belowVersion?: number;
}

/** Entries are read again this long after their `addedAt`: a write may become visible after a later one. */
export const REVOCATION_OVERLAP_MS = 30_000;

export const revocationKey = (r: Pick<Revocation, 'kind' | 'id'>): string => `${r.kind}:${r.id}`;

/** Insert, or keep the later expiry; `addedAt` (the server's clock, one for every instance) moves, so readers see it again. */
export function revocationUpsert(r: Revocation): UpdateFilter<RevocationDoc> {
  return {
    $setOnInsert: { kind: r.kind, id: r.id, ...(r.loginId === undefined ? {} : { loginId: r.loginId }) },
    $max: { expiresAt: r.expiresAt, ...(r.belowVersion === undefined ? {} : { belowVersion: r.belowVersion }) },
    $currentDate: { addedAt: true },
  };
}

/** What was added since `cursorMs` (the newest `addedAt` seen), with an overlap for late writes. */
export const addedSince = (cursorMs: number): Filter<RevocationDoc> =>
  cursorMs <= 0 ? {} : { addedAt: { $gt: new Date(cursorMs - REVOCATION_OVERLAP_MS) } };

export const revocationExpiredBefore = (now: number): Filter<RevocationDoc> => ({ expiresAt: { $lt: now } });

export const REVOCATION_INDEXES: CollectionIndexes = {
  revocations: [
    { key: { addedAt: 1 }, name: 'revocations_added' },
    { key: { expiresAt: 1 }, name: 'revocations_expiry' },
    { key: { loginId: 1 }, name: 'revocations_login', sparse: true },
  ],
};

import type { Db as MongoDb } from 'mongodb';
import {
  SPENT_CODE_RETENTION_S,
  type AuthorizationCodeRecord,
  type AuthorizationCodeStore,
} from './authorization-code-store.ts';
import { guarded, type CollectionIndexes, type Runner } from './mongo.ts';

interface CodeDoc extends Omit<
  AuthorizationCodeRecord,
  'codeHash' | 'scope' | 'accountId' | 'accountVersion' | 'nonce' | 'authTime' | 'codeChallenge'
> {
  _id: string;
  scope: string[];
  /** Null (or absent) on a code issued without a PKCE challenge. */
  codeChallenge?: string | null;
  /** Absent on codes stored before codes named their account. */
  accountId?: number | null;
  accountVersion?: number | null;
  /** Absent on codes stored before OpenID Connect's nonce and auth_time were recorded. */
  nonce?: string | null;
  authTime?: number | null;
}

export const AUTHORIZATION_CODE_INDEXES: CollectionIndexes = {
  authorization_codes: [{ key: { expiresAt: 1 }, name: 'authorization_codes_expiry' }],
};

const toRecord = ({
  _id,
  codeChallenge,
  accountId,
  accountVersion,
  nonce,
  authTime,
  ...d
}: CodeDoc): AuthorizationCodeRecord => ({
  ...d,
  codeHash: _id,
  codeChallenge: codeChallenge ?? null,
  accountId: accountId ?? null,
  accountVersion: accountVersion ?? null,
  nonce: nonce ?? null,
  authTime: authTime ?? null,
});

/**
 * MongoDB adapter of {@link AuthorizationCodeStore}: collection `authorization_codes`, keyed by the
 * code's hash. A spend is one atomic update of an unspent code: presented to two instances at once,
 * one of them spends it; the other then reads it spent.
 */
export function mongoAuthorizationCodeStore(db: MongoDb, run: Runner = guarded): AuthorizationCodeStore {
  const codes = db.collection<CodeDoc>('authorization_codes');
  return {
    insert: ({ codeHash, scope, ...rest }) =>
      run(async () => {
        await codes.insertOne({ _id: codeHash, ...rest, scope: [...scope] });
      }),
    spend: (hash, now) =>
      run(async () => {
        const before = await codes.findOneAndUpdate(
          { _id: hash, usedAt: null },
          { $set: { usedAt: now } },
          { returnDocument: 'before' },
        );
        if (before) return toRecord(before);
        const spent = await codes.findOne({ _id: hash }, { readPreference: 'primary' });
        return spent ? toRecord(spent) : undefined;
      }),
    purgeExpired: (now) =>
      run(async () => (await codes.deleteMany({ expiresAt: { $lt: now - SPENT_CODE_RETENTION_S } })).deletedCount),
  };
}

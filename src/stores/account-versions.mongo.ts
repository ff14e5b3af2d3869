/**
 * The accounts' security versions on MongoDB. There is no transaction across collections here, so
 * a change that moves a version first writes the account's revocation entry (refusing the versions
 * below the new one), then changes the account only if it is still at the version read (one
 * conditional update: a concurrent change makes the caller read again), then carries the logins
 * that go on. A crash part-way refuses more, never less: the entry is written before anything it
 * covers changes.
 */
import { epochSeconds } from '../security/epoch.ts';
import type { Db as MongoDb } from 'mongodb';
import type { AccountRecord, AccountRefusal } from './account-store.ts';
import { accountsIn, type AccountDoc } from './account-store.mongo-queries.ts';
import type { RefreshTokenDoc } from './refresh-token-store.mongo-queries.ts';
import { revocationKey, revocationUpsert, type RevocationDoc } from './revocation-store.mongo-queries.ts';

/** A deleted account's entry outlives any access token (the longest validity configurable is a year). */
const DELETED_ENTRY_S = 31_622_400 + 86_400;
/** An account's entry while it exists: never expires (one per account, replaced by each change). */
const NEVER = Number.MAX_SAFE_INTEGER;
/** How often a change is read again when another change overtook it. */
const RACE_RETRIES = 20;

export function accountVersions(db: MongoDb) {
  const accounts = accountsIn(db);
  const revocations = db.collection<RevocationDoc>('revocations');
  const refreshTokens = db.collection<RefreshTokenDoc>('refresh_tokens');
  /** Refuses what was minted from the account at a version below `belowVersion`, until `expiresAt`. */
  const refuseBelow = async (id: number, belowVersion: number, expiresAt: number): Promise<void> => {
    const entry = { kind: 'account' as const, id: String(id), expiresAt, belowVersion };
    await revocations.updateOne({ _id: revocationKey(entry) }, revocationUpsert(entry), { upsert: true });
  };
  /** Carries the account's live logins at `from` (all, or the one `loginId`) to version `from + 1`. */
  const carry = async (id: number, from: number, loginId?: string): Promise<void> => {
    await refreshTokens.updateMany(
      {
        accountId: id,
        accountVersion: from === 0 ? { $in: [0, null] } : from,
        usedAt: null,
        revokedAt: null,
        // `familyId`: the stored name of the login's id, kept for existing data.
        ...(loginId === undefined ? {} : { familyId: loginId }),
      },
      { $set: { accountVersion: from + 1 } },
    );
  };
  /** Runs `attempt` until it is not overtaken by another change (bounded). */
  const untilSettled = async (
    attempt: () => Promise<AccountRecord | AccountRefusal | undefined>,
  ): Promise<AccountRecord | AccountRefusal> => {
    for (let tries = 0; tries < RACE_RETRIES; tries++) {
      const outcome = await attempt();
      if (outcome !== undefined) return outcome;
    }
    throw new Error('the account kept changing under a write');
  };
  /** Moves the version of the account read as `before` (enabled or not) with `set`; false when overtaken. */
  const moveWith = async (before: AccountRecord, set: Partial<AccountDoc>): Promise<boolean> => {
    const version = before.securityVersion;
    await refuseBelow(before.id, version + 1, NEVER);
    const done = await accounts.updateOne(
      { _id: before.id, securityVersion: version === 0 ? { $in: [0, null] } : version },
      { $set: { ...set, securityVersion: version + 1 } },
    );
    return done.matchedCount === 1;
  };
  /** A deleted account: every version refused, for longer than any access token lives. */
  const refuseDeleted = (id: number): Promise<void> => refuseBelow(id, NEVER, epochSeconds() + DELETED_ENTRY_S);
  return { refuseDeleted, carry, moveWith, untilSettled };
}

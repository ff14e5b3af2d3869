/**
 * The filters, updates, mappings and indexes that `account-store.mongo.ts` sends to collections
 * `roles`, `users` and `counters`, as pure functions of their inputs: tested on every run against
 * documents, where no MongoDB server is at hand too. Also the one place those collections are
 * opened by name.
 */
import type { Collection, CollationOptions, Db, Filter, Sort, UpdateFilter } from 'mongodb';
import type { AccountRecord, Role } from './account-store.ts';
import type { CollectionIndexes } from './mongo.ts';

export interface RoleDoc {
  _id: number;
  roleName: string;
  description: string;
}
export interface AccountDoc {
  _id: number;
  username: string;
  password: string;
  firstName: string;
  lastName: string;
  /** Absent on accounts saved before accounts had one, null when cleared: no email. */
  email?: string | null;
  roleIds: number[];
  /** Absent on accounts saved before accounts could be disabled: enabled. */
  enabled?: boolean;
  /** The account's security version; absent on accounts saved before it was kept: 0. */
  securityVersion?: number | null;
  /**
   * Epoch seconds of its profile's last change; absent on accounts saved before it was kept, which
   * the preparation stamps ({@link UNSTAMPED}); read as 0 (unknown) where an older release wrote one since.
   */
  updatedAt?: number;
}

export const toRole = (d: RoleDoc): Role => ({ id: d._id, roleName: d.roleName, description: d.description });

export const toAccount = (d: AccountDoc, roles: readonly Role[]): AccountRecord => ({
  id: d._id,
  username: d.username,
  password: d.password,
  firstName: d.firstName,
  lastName: d.lastName,
  email: d.email ?? null,
  roles,
  enabled: d.enabled !== false,
  securityVersion: d.securityVersion ?? 0,
  updatedAt: d.updatedAt ?? 0,
});

/** Each account with the roles it names, in id order, from the role documents at hand. */
export function joinRoles(docs: readonly AccountDoc[], roleDocs: readonly RoleDoc[]): AccountRecord[] {
  const byId = new Map(roleDocs.map((r) => [r._id, toRole(r)]));
  return docs.map((d) =>
    toAccount(
      d,
      d.roleIds.flatMap((id) => byId.get(id) ?? []).sort((x, y) => x.id - y.id),
    ),
  );
}

/** The accounts, in collection `users`: the stored name predates the word account. */
export const accountsIn = (db: Db): Collection<AccountDoc> => db.collection<AccountDoc>('users');

export const rolesIn = (db: Db): Collection<RoleDoc> => db.collection<RoleDoc>('roles');

export const roleByName = (roleName: string): Filter<RoleDoc> => ({ roleName });

/**
 * Creates the role with `id` when no role has the name, else sets its description (when given).
 * Upserted by name: processes starting together create each role once (a unique index on the name).
 */
export function roleUpsert(
  role: { roleName: string; description?: string | undefined },
  id: number,
): UpdateFilter<RoleDoc> {
  return role.description === undefined
    ? { $setOnInsert: { _id: id, description: '' } }
    : { $setOnInsert: { _id: id }, $set: { description: role.description } };
}

export const accountByName = (username: string): Filter<AccountDoc> => ({ username });

/**
 * Emails are unique compared case-insensitively, as the user-data service's are: a unique index
 * under a strength-2 collation, partial (strings only), so that accounts without an email are not
 * limited. A lookup by email names the same collation to be answered by that index.
 */
export const EMAIL_COLLATION: CollationOptions = { locale: 'en', strength: 2 };

/** Another account than `except` with the email (under {@link EMAIL_COLLATION}: in whichever case). */
export const otherWithEmail = (email: string, except: number): Filter<AccountDoc> => ({
  email: { $eq: email, $type: 'string' },
  _id: { $ne: except },
});

/** The account while it is enabled at security version `version` (an absent version is 0). */
export const accountAt = (id: number, version: number): Filter<AccountDoc> => ({
  _id: id,
  enabled: { $ne: false },
  ...(version === 0 ? { securityVersion: { $in: [0, null] } } : { securityVersion: version }),
});

/** The account while its stored hash is `hash`: a rehash written only over the hash compared. */
export const accountWithHash = (id: number, hash: string): Filter<AccountDoc> => ({ _id: id, password: hash });

/**
 * Creates the account with `id` when no account has the name, else replaces its fields and role
 * set; `updatedAt` is written when it is created or its names differ from `existing`'s (as read).
 */
export function accountUpsert(
  account: { password: string; firstName?: string | undefined; lastName?: string | undefined; updatedAt: number },
  roleIds: readonly number[],
  id: number,
  existing: Pick<AccountDoc, 'firstName' | 'lastName'> | null,
): UpdateFilter<AccountDoc> {
  const firstName = account.firstName ?? '';
  const lastName = account.lastName ?? '';
  const renamed = existing === null || existing.firstName !== firstName || existing.lastName !== lastName;
  return {
    $set: {
      password: account.password,
      firstName,
      lastName,
      roleIds: [...roleIds],
      ...(renamed ? { updatedAt: account.updatedAt } : {}),
    },
    $setOnInsert: { _id: id },
  };
}

/**
 * The accounts saved before `updatedAt` was kept: the preparation stamps them with its own time
 * ({@link stamped}), as SQLite's migration 021 does.
 */
export const UNSTAMPED: Filter<AccountDoc> = { updatedAt: { $exists: false } };
export const stamped = (at: number): UpdateFilter<AccountDoc> => ({ $set: { updatedAt: at } });

/**
 * The enabled holders of a guarded role (ADMIN), collection `role_guards`: its `holders` are always
 * enabled holders of the role (a subset: an account is added after the write that makes it one, and
 * taken out before the write that unmakes it), and a holder is taken out only while another one
 * stays, in one atomic update, so the last one can never be taken out by two changes at once.
 */
export interface GuardDoc {
  _id: string;
  holders: number[];
}
export const guardKey = (role: string): string => `guard:${role}`;
/** The guard of `role` while `id` is one of at least two holders: taking it out leaves another. */
export const releasable = (role: string, id: number): Filter<GuardDoc> => ({
  _id: guardKey(role),
  holders: id,
  'holders.1': { $exists: true },
});

/**
 * An account of the initial data that this database has seeded (collection `seeded_accounts`), by
 * username: written, as a claim, before the account is created, and kept after the account is
 * deleted, so that it is not created again. `appliedAt` is set once the account exists; a record
 * without it is a claim still being carried out, or one a crash cut short.
 */
export interface SeededAccountDoc {
  _id: string;
  claimedAt: Date;
  appliedAt?: Date;
}
export const seededAccount = (username: string): Filter<SeededAccountDoc> => ({ _id: username });
/** The record while it is a claim not yet applied. */
export const unapplied = (username: string): Filter<SeededAccountDoc> => ({
  _id: username,
  appliedAt: { $exists: false },
});
/** Writes the claim when no record of the username exists; leaves one that does as it is. */
export const seedClaim = (): UpdateFilter<SeededAccountDoc> => ({ $setOnInsert: { claimedAt: new Date() } });

/** The counter of account ids given (`counters` collection): never lowered, so no id is given twice. */
export const ACCOUNT_IDS = 'account-ids';

/** The counter that moves with every change this service makes to accounts or roles (`counters` collection). */
export const CREDENTIAL_CHANGES = 'credential-changes';

export const rolesByIds = (ids: readonly number[]): Filter<RoleDoc> => ({ _id: { $in: [...ids] } });

/** Accounts and roles in id order. */
export const BY_ID: Sort = { _id: 1 };
/** The highest id first: the next one is one more. */
export const BY_NEWEST_ID: Sort = { _id: -1 };

export const CREDENTIAL_INDEXES: CollectionIndexes = {
  roles: [{ key: { roleName: 1 }, name: 'roles_name', unique: true }],
  users: [
    { key: { username: 1 }, name: 'users_username', unique: true },
    {
      key: { email: 1 },
      name: 'users_email',
      unique: true,
      collation: EMAIL_COLLATION,
      partialFilterExpression: { email: { $type: 'string' } },
    },
  ],
};

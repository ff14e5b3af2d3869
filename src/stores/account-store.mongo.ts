import type { Db as MongoDb } from 'mongodb';
import {
  changesProfile,
  type AccountChanges,
  type AccountRecord,
  type AccountRefusal,
  type AccountStore,
  type NewAccount,
} from './account-store.ts';
import { escapeRegex, guarded, isDuplicateKey, matchedOrTaken, nextSeq, type Runner } from './mongo.ts';
import { roleGuards } from './role-guards.mongo.ts';
import { accountVersions } from './account-versions.mongo.ts';
import { accountSeeds } from './account-seeds.mongo.ts';
import { accountUpserts } from './account-upserts.mongo.ts';
import {
  ACCOUNT_IDS,
  accountByName,
  accountsIn,
  accountWithHash,
  BY_ID,
  BY_NEWEST_ID,
  CREDENTIAL_CHANGES,
  EMAIL_COLLATION,
  joinRoles,
  otherWithEmail,
  roleByName,
  rolesByIds,
  rolesIn,
  toRole,
  type AccountDoc,
} from './account-store.mongo-queries.ts';
import type { CounterDoc } from './mongo.ts';

/**
 * MongoDB adapter of {@link AccountStore}: collections `roles` and `users` (a stored name that
 * predates the word account, kept for existing data), numeric ids 1, 2, …
 * (the listing shows them, as SQLite's do); an account's id comes from the `account-ids` counter,
 * so that no id is ever given twice. Every save moves the `credential-changes` counter after its
 * write; a change made to these collections by anything but this adapter does not move it.
 * The security version moves as `account-versions.mongo.ts` says; the last holder of a guarded
 * role is kept as `role-guards.mongo.ts` says; the seeded accounts are recorded as
 * `account-seeds.mongo.ts` says; saves by name are upserts (`account-upserts.mongo.ts`). Emails are unique under a case-insensitive collation (the index
 * `users_email`): checked before a write, and a race lost on the index refuses the write too.
 */
export function mongoAccountStore(db: MongoDb, run: Runner = guarded): AccountStore {
  const roles = rolesIn(db);
  const accounts = accountsIn(db);

  const changed = (): Promise<number> => nextSeq(db, CREDENTIAL_CHANGES);

  /** The accounts with their roles (by id), from one query of the roles they name. */
  const withRoles = async (docs: readonly AccountDoc[]): Promise<AccountRecord[]> => {
    if (docs.length === 0) return [];
    const named = await roles.find(rolesByIds([...new Set(docs.flatMap((d) => d.roleIds))])).toArray();
    return joinRoles(docs, named);
  };
  const recordOf = async (account: AccountDoc | null): Promise<AccountRecord | undefined> =>
    account ? (await withRoles([account]))[0] : undefined;
  const findByUsername = async (username: string): Promise<AccountRecord | undefined> =>
    recordOf(await accounts.findOne(accountByName(username)));
  const findById = async (id: number): Promise<AccountRecord | undefined> =>
    recordOf(await accounts.findOne({ _id: id }));
  /** The ids of the named roles, or the refusal when one is unknown. */
  const roleIdsOf = async (names: readonly string[]): Promise<number[] | AccountRefusal> => {
    const found = await roles.find({ roleName: { $in: [...names] } }).toArray();
    return found.length === new Set(names).size ? found.map((r) => r._id) : 'role.unknown';
  };
  /** Whether another account than `except` has the email, in whichever case. */
  const emailTaken = async (email: string | null | undefined, except = 0): Promise<boolean> =>
    typeof email === 'string' &&
    (await accounts.findOne(otherWithEmail(email, except), { collation: EMAIL_COLLATION })) !== null;
  const { release, enlist } = roleGuards(db, findById);
  const holds = (account: AccountRecord, role: string): boolean =>
    account.enabled && account.roles.some((r) => r.roleName === role);
  /** A new account id: above every id given so far, deleted accounts' included. */
  const nextAccountId = async (): Promise<number> => {
    const newest = (await accounts.find().sort(BY_NEWEST_ID).limit(1).next())?._id ?? 0;
    await db
      .collection<CounterDoc>('counters')
      .updateOne({ _id: ACCOUNT_IDS }, { $max: { seq: newest } }, { upsert: true });
    return nextSeq(db, ACCOUNT_IDS);
  };
  const createAccount = async (a: NewAccount): Promise<AccountRecord | AccountRefusal> => {
    const roleIds = await roleIdsOf(a.roles);
    if (typeof roleIds === 'string') return roleIds;
    if (await accounts.findOne(accountByName(a.username))) return 'account.username_taken';
    if (await emailTaken(a.email)) return 'account.email_taken';
    try {
      await accounts.insertOne({
        _id: await nextAccountId(),
        username: a.username,
        password: a.password,
        firstName: a.firstName,
        lastName: a.lastName,
        email: a.email ?? null,
        roleIds,
        enabled: a.enabled,
        securityVersion: 0,
        updatedAt: a.updatedAt,
      });
    } catch (error) {
      if (!isDuplicateKey(error)) throw error;
      // A race lost on one of the unique indexes: the username's, or else the email's.
      return (await accounts.findOne(accountByName(a.username))) ? 'account.username_taken' : 'account.email_taken';
    }
    const created = await findByUsername(a.username);
    if (created) await enlist(created.id);
    await changed();
    return created ?? 'account.not_found';
  };
  const { seedAccount } = accountSeeds(db, createAccount);
  const { refuseDeleted, carry, moveWith, untilSettled } = accountVersions(db);
  const { saveRole, saveAccount } = accountUpserts(db, changed, nextAccountId, findByUsername);
  const updateAccount = (id: number, c: AccountChanges, guarded: string, changedAt: number) =>
    untilSettled(async () => {
      const before = await findById(id);
      if (!before) return 'account.not_found';
      const roleIds = c.roles === undefined ? undefined : await roleIdsOf(c.roles);
      if (typeof roleIds === 'string') return roleIds;
      if (await emailTaken(c.email, id)) return 'account.email_taken';
      const demoted = c.enabled === false || (c.roles !== undefined && !c.roles.includes(guarded));
      if (demoted && !(await release(before, guarded))) return 'account.last_admin';
      const undo = async (): Promise<undefined> => {
        if (demoted && holds(before, guarded)) await enlist(id);
        return undefined;
      };
      const emailRefused = async (): Promise<AccountRefusal> => {
        await undo();
        return 'account.email_taken';
      };
      const set = {
        ...(c.firstName === undefined ? {} : { firstName: c.firstName }),
        ...(c.lastName === undefined ? {} : { lastName: c.lastName }),
        ...(c.email === undefined ? {} : { email: c.email }),
        ...(c.enabled === undefined ? {} : { enabled: c.enabled }),
        ...(roleIds === undefined ? {} : { roleIds }),
        ...(changesProfile(before, c) ? { updatedAt: changedAt } : {}),
      };
      const sorted = (names: readonly string[]): string => [...new Set(names)].sort().join();
      const moves =
        (c.enabled !== undefined && c.enabled !== before.enabled) ||
        (c.roles !== undefined && sorted(c.roles) !== sorted(before.roles.map((r) => r.roleName)));
      const version = before.securityVersion;
      const at = { _id: id, securityVersion: version === 0 ? { $in: [0, null] } : version };
      // The email first, alone and over the account as read: a race lost on its index is refused
      // before anything is written that would move the version.
      if (c.email !== undefined && moves) {
        const first = await matchedOrTaken(accounts.updateOne(at, { $set: { email: c.email } }));
        if (first !== 1) return first === 'taken' ? emailRefused() : undo();
      }
      if (moves) {
        if (!(await moveWith(before, set))) return undo();
        // A role change of an enabled account: its logins go on, at the new version.
        if (before.enabled && (c.enabled ?? true)) await carry(id, before.securityVersion);
      } else {
        // Names alone, but only over the account as read: a disable or demotion made meanwhile is
        // not undone by the `enabled` or roles this request repeats (read again, and judged again).
        const written = await matchedOrTaken(accounts.updateOne(at, { $set: set }));
        if (written !== 1) return written === 'taken' ? emailRefused() : undefined;
      }
      await enlist(id);
      await changed();
      return (await findById(id)) ?? 'account.not_found';
    });

  return {
    findById: (id) => run(() => findById(id)),
    page: (q) =>
      run(async () => {
        const prefix = new RegExp(`^${escapeRegex(q.usernamePrefix)}`);
        const docs = await accounts
          .find({ _id: { $gt: q.afterId }, username: prefix })
          .sort(BY_ID)
          .limit(q.limit)
          .toArray();
        return withRoles(docs);
      }),
    listRoles: () => run(async () => (await roles.find().sort(BY_ID).toArray()).map(toRole)),
    createRole: (role) =>
      run(async () => {
        if (await roles.findOne(roleByName(role.roleName))) return 'role.name_taken';
        try {
          return await saveRole(role);
        } catch (error) {
          if (isDuplicateKey(error)) return 'role.name_taken';
          throw error;
        }
      }),
    createAccount: (a) => run(() => createAccount(a)),
    seedAccount: (a) => run(() => seedAccount(a)),
    updateAccount: (id, c, guarded, at) => run(() => updateAccount(id, c, guarded, at)),
    setPassword: (id, hash, keepLogin, atVersion) =>
      run(() =>
        untilSettled(async () => {
          const before = await findById(id);
          if (!before || (atVersion !== undefined && before.securityVersion !== atVersion)) return 'account.not_found';
          if (!(await moveWith(before, { password: hash }))) return undefined;
          if (keepLogin !== undefined) await carry(id, before.securityVersion, keepLogin);
          await changed();
          return (await findById(id)) ?? 'account.not_found';
        }),
      ),
    replaceHash: (id, compared, hash) =>
      run(async () => {
        const done = await accounts.updateOne(accountWithHash(id, compared), { $set: { password: hash } });
        if (done.modifiedCount === 1) await changed();
        return done.modifiedCount === 1;
      }),
    endLogins: (id) =>
      run(() =>
        untilSettled(async () => {
          const before = await findById(id);
          if (!before) return 'account.not_found';
          if (!(await moveWith(before, {}))) return undefined;
          await changed();
          return (await findById(id)) ?? 'account.not_found';
        }),
      ),
    deleteAccount: (id, guarded) =>
      run(async () => {
        const before = await findById(id);
        if (!before) return 'account.not_found';
        if (!(await release(before, guarded))) return 'account.last_admin';
        await refuseDeleted(id);
        await accounts.deleteOne({ _id: id });
        // Its consents go with it (on SQLite, a foreign key does it).
        await db.collection('consents').deleteMany({ accountId: id });
        await changed();
        return before;
      }),
    findByUsername: (username) => run(() => findByUsername(username)),
    changeCount: () =>
      run(async () => (await db.collection<CounterDoc>('counters').findOne({ _id: CREDENTIAL_CHANGES }))?.seq ?? 0),
    listAll: () =>
      run(async () => {
        const [all, allRoles] = await Promise.all([
          accounts.find().sort(BY_ID).toArray(),
          roles.find().sort(BY_ID).toArray(),
        ]);
        return joinRoles(all, allRoles);
      }),
    saveRole: (role) => run(() => saveRole(role)),
    saveAccount: (account) => run(() => saveAccount(account)),
  };
}

/**
 * The filters and updates the MongoDB adapters send (src/stores/*.mongo-queries.ts), run on every
 * run against documents with mingo, an implementation of MongoDB's query and update language.
 * mingo has no upserts: `upsert` below builds the inserted document the way MongoDB documents it
 * (the filter's equality fields, then the update with $setOnInsert), and updates a match otherwise.
 */
import { find, Query, update } from 'mingo';
import type { Filter, UpdateFilter } from 'mongodb';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { newId } from '../../src/ids.ts';
import * as Activity from '../../src/stores/activity-store.mongo-queries.ts';
import * as Accounts from '../../src/stores/account-store.mongo-queries.ts';
import * as RefreshTokens from '../../src/stores/refresh-token-store.mongo-queries.ts';
import * as Revocations from '../../src/stores/revocation-store.mongo-queries.ts';
import * as Throttle from '../../src/stores/login-throttle-store.mongo-queries.ts';
import * as Users from '../../src/stores/user-store.mongo-queries.ts';
import { INDEXES } from '../../src/stores/stores.mongo.ts';
import { lineageRecords, withLineage, type StoredKey } from '../../src/stores/key-store.mongo.ts';

type Doc = Record<string, unknown>;

const matches = (filter: Filter<never> | Doc, doc: Doc): boolean => new Query(filter as Doc).test(doc);

/** Applies `modifier` to a copy of `doc`, $setOnInsert left out (it applies to inserts only). */
function updated(doc: Doc, modifier: UpdateFilter<never> | Doc): Doc {
  const { $setOnInsert: _, ...rest } = modifier as Doc;
  const copy = structuredClone(doc);
  update(copy, rest as never);
  return copy;
}

/** MongoDB's upsert: update the first match, or insert the filter's equality fields with the update applied. */
function upsert(docs: Doc[], filter: Doc, modifier: Doc): Doc[] {
  const i = docs.findIndex((d) => matches(filter, d));
  if (i >= 0) return docs.map((d, j) => (j === i ? updated(d, modifier) : d));
  const base = Object.fromEntries(
    Object.entries(filter).filter(
      ([k, v]) => !k.startsWith('$') && (typeof v !== 'object' || v === null || v instanceof Date),
    ),
  );
  const inserted = updated({ ...base, ...((modifier['$setOnInsert'] as Doc | undefined) ?? {}) }, modifier);
  return [...docs, inserted];
}

const t = suite('stores: MongoDB filters and updates (mingo)');

t(
  'roles: upserted by name, created once with their id; a description given replaces the stored one, none keeps it',
  () => {
    let roles: Doc[] = [];
    roles = upsert(
      roles,
      Accounts.roleByName('ADMIN') as Doc,
      Accounts.roleUpsert({ roleName: 'ADMIN', description: 'all' }, 1) as Doc,
    );
    roles = upsert(roles, Accounts.roleByName('ADMIN') as Doc, Accounts.roleUpsert({ roleName: 'ADMIN' }, 7) as Doc);
    roles = upsert(roles, Accounts.roleByName('USER') as Doc, Accounts.roleUpsert({ roleName: 'USER' }, 2) as Doc);
    assert.equal(roles, [
      { roleName: 'ADMIN', _id: 1, description: 'all' },
      { roleName: 'USER', _id: 2, description: '' },
    ]);
    roles = upsert(
      roles,
      Accounts.roleByName('ADMIN') as Doc,
      Accounts.roleUpsert({ roleName: 'ADMIN', description: 'everything' }, 9) as Doc,
    );
    assert.equal(roles[0], { roleName: 'ADMIN', _id: 1, description: 'everything' });
    assert.equal(find(roles, Accounts.rolesByIds([2]) as Doc).all(), [roles[1]]);
  },
);

t('users: upserted by name with their role ids; an existing user keeps its id and gets the new fields', () => {
  let users: Doc[] = [];
  const jane = Accounts.accountByName('jane') as Doc;
  users = upsert(users, jane, Accounts.accountUpsert({ password: 'h1', updatedAt: 10 }, [1, 2], 3, null) as Doc);
  const made = { username: 'jane', _id: 3, password: 'h1', firstName: '', lastName: '', roleIds: [1, 2] };
  assert.equal(users, [{ ...made, updatedAt: 10 }], 'made: stamped');
  const existing = { firstName: '', lastName: '' };
  users = upsert(users, jane, Accounts.accountUpsert({ password: 'h3', updatedAt: 15 }, [1, 2], 4, existing) as Doc);
  assert.equal(users, [{ ...made, password: 'h3', updatedAt: 10 }], 'the same names: not stamped again');
  users = upsert(
    users,
    jane,
    Accounts.accountUpsert({ password: 'h2', firstName: 'Jane', updatedAt: 20 }, [2], 4, existing) as Doc,
  );
  assert.equal(
    users,
    [{ username: 'jane', _id: 3, password: 'h2', firstName: 'Jane', lastName: '', roleIds: [2], updatedAt: 20 }],
    'renamed: stamped',
  );
  assert.equal(
    find(users, {})
      .sort(Accounts.BY_ID as Doc)
      .all()
      .map((u) => u['_id']),
    [3],
  );
});

const token = (over: Doc = {}): Doc => ({
  ...RefreshTokens.refreshTokenDoc({
    tokenHash: newId(),
    loginId: 'f',
    clientId: 'c',
    username: 'u',
    scope: ['read'],
    issuedAt: 1,
    expiresAt: 100,
    usedAt: null,
    revokedAt: null,
    accessExpiresAt: 50,
    generation: 0,
    accountId: 1,
    accountVersion: 0,
    authTime: 1,
  }),
  ...over,
});

t("refresh tokens: only an unused, unrevoked token is spent; a login's live tokens are revoked; expiry filters", () => {
  const fresh = token();
  const used = token({ usedAt: 5 });
  const revoked = token({ revokedAt: 5 });
  assert.ok(matches(RefreshTokens.unspentToken(fresh['_id'] as string), fresh));
  assert.not.ok(matches(RefreshTokens.unspentToken(used['_id'] as string), used));
  assert.not.ok(matches(RefreshTokens.unspentToken(revoked['_id'] as string), revoked));
  assert.not.ok(matches(RefreshTokens.unspentToken('other'), fresh));
  assert.is(updated(fresh, RefreshTokens.markUsed(9))['usedAt'], 9);
  assert.equal(find([fresh, used, revoked, token({ familyId: 'g' })], RefreshTokens.liveInLogin('f') as Doc).all(), [
    fresh,
    used,
  ]);
  assert.is(updated(fresh, RefreshTokens.markRevoked(9))['revokedAt'], 9);
  assert.equal(
    find([token({ expiresAt: 10 }), fresh], RefreshTokens.expiredBefore(50) as Doc)
      .all()
      .map((d) => d['expiresAt']),
    [10],
  );
  assert.equal(
    RefreshTokens.refreshTokenRecord(RefreshTokens.refreshTokenDoc(RefreshTokens.refreshTokenRecord(fresh as never))),
    RefreshTokens.refreshTokenRecord(fresh as never),
  );
  const { authTime: _authTime, ...older } = fresh;
  assert.is(RefreshTokens.refreshTokenRecord(older as never).authTime, null, 'written before auth_time was recorded');
});

t(
  "revocations: inserted once with the server's time; read again since a cursor, with an overlap for late writes",
  () => {
    const r = { kind: 'login' as const, id: 'l1', expiresAt: 500 };
    const [doc] = upsert([], { _id: Revocations.revocationKey(r) }, Revocations.revocationUpsert(r) as Doc);
    assert.is(doc?.['_id'], 'login:l1');
    assert.equal([doc?.['kind'], doc?.['id'], doc?.['expiresAt']], ['login', 'l1', 500]);
    assert.instance(doc?.['addedAt'], Date);
    const at = (ms: number): Doc => ({ addedAt: new Date(ms) });
    const cursor = 1_000_000;
    const docs = [at(cursor - Revocations.REVOCATION_OVERLAP_MS - 1), at(cursor - 10), at(cursor + 10)];
    assert.equal(find(docs, Revocations.addedSince(cursor) as Doc).all(), docs.slice(1));
    assert.equal(find(docs, Revocations.addedSince(0) as Doc).all(), docs, 'no cursor: everything');
    assert.equal(find([{ expiresAt: 5 }, { expiresAt: 50 }], Revocations.revocationExpiredBefore(10) as Doc).all(), [
      { expiresAt: 5 },
    ]);
  },
);

t(
  'user data: a conditional update applies only at the version, sets the changed fields, stamps the time, bumps the version',
  () => {
    const id = newId();
    const doc = Users.userDataDoc({
      id,
      name: 'Ann',
      email: 'ann@example.com',
      createdAt: '2026-01-01T00:00:00.000Z',
      updatedAt: '2026-01-01T00:00:00.000Z',
    }) as unknown as Doc;
    assert.ok(matches(Users.userAtVersion(id, 1), doc));
    assert.not.ok(matches(Users.userAtVersion(id, 2), doc));
    const after = updated(doc, Users.userUpdate({ name: 'Anne', updatedAt: '2026-02-01T00:00:00.000Z' }));
    assert.equal(
      [after['name'], after['email'], after['version'], (after['updatedAt'] as Date).toISOString()],
      ['Anne', 'ann@example.com', 2, '2026-02-01T00:00:00.000Z'],
    );
    assert.equal(Users.userDataRecord(after as never), {
      id,
      name: 'Anne',
      email: 'ann@example.com',
      createdAt: '2026-01-01T00:00:00.000Z',
      updatedAt: '2026-02-01T00:00:00.000Z',
      version: 2,
    });
    assert.is(updated(doc, Users.NEXT_ACTIVITY_SEQ)['activitySeq'], 1);
    assert.equal(Object.keys(Users.USER_FIELDS), ['activitySeq'], 'only the counter is left out of what is read');
  },
);

t('activity: a page filters by user and seq, newest first; detail round-trips whatever its keys', () => {
  const userId = newId();
  const docs = [1, 2, 3].map(
    (seq) =>
      Activity.activityDoc(
        { id: newId(), userId, type: 'T', detail: { seq, 'a.b': 1, $c: [2] }, at: '2026-01-01T00:00:00.000Z' },
        seq,
      ) as unknown as Doc,
  );
  const other = Activity.activityDoc(
    { id: newId(), userId: newId(), type: 'T', detail: {}, at: '2026-01-01T00:00:00.000Z' },
    9,
  ) as unknown as Doc;
  const page = (before?: number) =>
    find([...docs, other], Activity.activityPage(userId, before) as Doc)
      .sort(Activity.NEWEST_FIRST as Doc)
      .all()
      .map((d) => d['seq']);
  assert.equal(page(), [3, 2, 1]);
  assert.equal(page(3), [2, 1]);
  assert.equal(Activity.activityRecord(docs[0] as never).detail, { seq: 1, 'a.b': 1, $c: [2] });
});

t('known pairs: seen now; trimmed before a time', () => {
  const now = new Date();
  assert.equal(updated({ _id: 'p' }, Throttle.seenNow(now)), { _id: 'p', seenAt: now });
  assert.equal(find([{ seenAt: new Date(1) }, { seenAt: now }], Throttle.seenBefore(new Date(2)) as Doc).all(), [
    { seenAt: new Date(1) },
  ]);
});

t(
  'indexes: every collection the adapters use, unique where the contract needs it, emails under a case-insensitive collation',
  () => {
    const unique = Object.entries(INDEXES).flatMap(([c, list]) =>
      list.filter((i) => i.unique).map((i) => `${c} ${JSON.stringify(i.key)}`),
    );
    assert.equal(unique.sort(), [
      'consents {"accountId":1,"clientId":1}',
      'login_throttle {"key":1}',
      'roles {"roleName":1}',
      'user_activity {"userId":1,"seq":-1}',
      'user_data {"email":1}',
      'users {"email":1}',
      'users {"username":1}',
    ]);
    assert.equal(INDEXES['user_data']?.[0]?.collation, { locale: 'en', strength: 2 });
    assert.is(INDEXES['login_throttle']?.find((i) => i.expireAfterSeconds === 0)?.name, 'login_throttle_expire');
  },
);

t(
  'accounts: the guard of a role lets a holder go only while another stays; a version filter matches the version alone',
  () => {
    const guard = (holders: number[]): Doc => ({ _id: Accounts.guardKey('ADMIN'), holders });
    assert.ok(matches(Accounts.releasable('ADMIN', 1), guard([1, 2])));
    assert.not.ok(matches(Accounts.releasable('ADMIN', 1), guard([1])), 'the last holder stays');
    assert.not.ok(matches(Accounts.releasable('ADMIN', 3), guard([1, 2])), 'not a listed holder');
    assert.not.ok(matches(Accounts.releasable('USER', 1), guard([1, 2])), "another role's guard");
    assert.equal(updated(guard([1, 2]), { $pull: { holders: 1 } })['holders'], [2]);
    const account = (over: Doc = {}): Doc => ({ _id: 7, username: 'kim', enabled: true, securityVersion: 3, ...over });
    assert.ok(matches(Accounts.accountAt(7, 3), account()));
    assert.not.ok(matches(Accounts.accountAt(7, 2), account()), 'another version');
    assert.not.ok(matches(Accounts.accountAt(7, 3), account({ enabled: false })), 'disabled');
    assert.ok(matches(Accounts.accountAt(7, 0), account({ securityVersion: undefined })), 'kept before versions: 0');
    assert.not.ok(matches(Accounts.accountAt(8, 3), account()), 'another account');
  },
);

t('seeded accounts: the claim is written once and kept; applied once; the record outlives the account', () => {
  let seeded: Doc[] = [];
  seeded = upsert(seeded, Accounts.seededAccount('kim') as Doc, Accounts.seedClaim() as Doc);
  const [claim] = seeded;
  assert.ok(claim && claim['_id'] === 'kim' && claim['claimedAt'] instanceof Date);
  seeded = upsert(seeded, Accounts.seededAccount('kim') as Doc, Accounts.seedClaim() as Doc);
  assert.equal(seeded, [claim], 'a second claim leaves the first as it is');
  assert.ok(matches(Accounts.unapplied('kim'), claim), 'a claim not yet applied');
  const applied = updated(claim, { $set: { appliedAt: new Date(0) } });
  assert.not.ok(matches(Accounts.unapplied('kim'), applied), 'applied: neither released nor applied again');
  assert.ok(matches(Accounts.seededAccount('kim'), applied));
  assert.not.ok(matches(Accounts.seededAccount('lee'), applied));
});

t('accounts: a rehash matches the account only while its stored hash is the one compared', () => {
  const account: Doc = { _id: 7, username: 'kim', password: '$2b$04$old', securityVersion: 3 };
  assert.ok(matches(Accounts.accountWithHash(7, '$2b$04$old'), account));
  assert.not.ok(
    matches(Accounts.accountWithHash(7, '$2b$04$old'), { ...account, password: '$2b$10$new' }),
    'set since',
  );
  assert.not.ok(matches(Accounts.accountWithHash(8, '$2b$04$old'), account), 'another account');
});

t('accounts: an email is found on another account only, never on one without; absent or null reads as null', () => {
  const kim = { _id: 7, username: 'kim', password: 'h', firstName: '', lastName: '', roleIds: [], email: 'k@x.io' };
  assert.ok(matches(Accounts.otherWithEmail('k@x.io', 8), kim));
  assert.not.ok(matches(Accounts.otherWithEmail('k@x.io', 7), kim), 'the account itself');
  assert.not.ok(matches(Accounts.otherWithEmail('k@x.io', 8), { ...kim, email: null }), 'cleared');
  assert.equal(INDEXES['users']?.[1]?.partialFilterExpression, { email: { $type: 'string' } });
  assert.is(Accounts.toAccount(kim, []).email, 'k@x.io');
  assert.is(Accounts.toAccount({ ...kim, email: null }, []).email, null);
  const { email: _, ...older } = kim;
  assert.is(Accounts.toAccount(older, []).email, null, 'saved before accounts had one');
});

t('accounts: the preparation stamps only the accounts saved before updatedAt was kept', () => {
  const kim = { _id: 7, username: 'kim', password: 'h', firstName: '', lastName: '', roleIds: [] };
  assert.ok(matches(Accounts.UNSTAMPED, kim));
  assert.not.ok(matches(Accounts.UNSTAMPED, { ...kim, updatedAt: 5 }), 'stamped already');
  assert.is(Accounts.toAccount(updated(kim, Accounts.stamped(99) as Doc) as typeof kim, []).updatedAt, 99);
  assert.is(Accounts.toAccount({ ...kim, updatedAt: 5 }, []).updatedAt, 5);
  assert.is(Accounts.toAccount(kim, []).updatedAt, 0, 'written by an older release since: unknown');
});

t('signing keys: a record stored without a use is an access key; a change to one lineage keeps the other', () => {
  const stored = (kid: string, use?: 'access' | 'id_token'): StoredKey => ({
    kid,
    alg: use === 'id_token' ? 'RS256' : 'ES256',
    ...(use === undefined ? {} : { use }),
    secret: '{}',
    createdAt: 1,
    activatesAt: 1,
    removedAt: null,
    createdBy: 'test',
    removedBy: null,
  });
  const set = [stored('old'), stored('a', 'access'), stored('i', 'id_token')];
  assert.equal(
    lineageRecords(set, 'access').map((r) => [r.kid, r.use]),
    [
      ['old', 'access'],
      ['a', 'access'],
    ],
  );
  assert.equal(
    lineageRecords(set, 'id_token').map((r) => r.kid),
    ['i'],
  );
  const [, a] = lineageRecords(set, 'access');
  const changed = withLineage(set, 'access', a ? [a] : []);
  assert.equal(
    changed.map((k) => [k.kid, k.use]),
    [
      ['i', 'id_token'],
      ['a', 'access'],
    ],
  );
});

t.run();

/**
 * One behaviour for every adapter of every store port (employees aside: employee-store.contract.ts).
 * `storeContracts` registers the suites once per database; each test gets fresh, empty stores, and
 * `another()` opens a second set on the same data, as another process would.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readInitialData, loadInitialData } from '../../src/composition/initial-data.ts';
import { newId, type ObjectIdString } from '../../src/ids.ts';
import { createDenylist } from '../../src/security/denylist.ts';
import { createLoginThrottle } from '../../src/security/login-throttle.ts';
import { REVOKED_RETENTION_S, SPENT_WINDOW, type RefreshTokenRecord } from '../../src/stores/refresh-token-store.ts';
import type { Stores } from '../../src/stores/stores.ts';
import { authorizationCodes } from './authorization-code-store.contract.ts';
import { consents } from './consent-store.contract.ts';
import { consentTickets } from './consent-ticket-store.contract.ts';
import { sessions } from './session-store.contract.ts';
import { accountContracts } from './account-contract.ts';
import { accountEmails } from './account-email.contract.ts';
import { accountUpdatedAt } from './account-updated-at.contract.ts';
import { seededAccounts } from './seeded-accounts.contract.ts';

export interface StoresUnderTest {
  readonly stores: Stores;
  /** A second set of stores on the same data (another connection, as another process has). */
  another(): Promise<Stores>;
  /** Removes what `open` created and closes what it opened. */
  dispose(): Promise<void>;
}

export interface ContractTarget {
  /** Once before the suites, e.g. start a server. */
  readonly setup?: () => Promise<void>;
  readonly open: () => Promise<StoresUnderTest>;
  /** Once after the suites; runs even when `setup` failed. */
  readonly teardown?: () => Promise<void>;
}

const AT = '2026-01-01T00:00:00.000Z';
const HASH = '$2b$10$ou0V7wzSMMLBjrgg7HZmN.2c1W8VDzb41pZwpwGZFDFcWOOQ1NkEK';

const ctx = {} as { sut: StoresUnderTest | undefined };
const stores = (): Stores => ctx.sut?.stores ?? (assert.unreachable('no stores opened') as never);

function contractSuite(port: string, name: string, target: ContractTarget) {
  const t = suite(`${port} contract (${name})`);
  t.before.each(async () => {
    ctx.sut = await target.open();
  });
  t.after.each(async () => {
    await ctx.sut?.dispose();
    ctx.sut = undefined;
  });
  return t;
}

function accountStoreContract(name: string, target: ContractTarget): void {
  const t = contractSuite('AccountStore', name, target);
  t(
    'the initial data loads idempotently: loading twice, or from two processes at once, creates each account and role once',
    async () => {
      const data = readInitialData('data/initial-data.json');
      const other = await ctx.sut?.another();
      await Promise.all([loadInitialData(stores().accounts, data), other && loadInitialData(other.accounts, data)]);
      await loadInitialData(stores().accounts, data);
      const accounts = await stores().accounts.listAll();
      assert.equal(
        accounts.map((a) => [a.username, a.roles.map((r) => r.roleName)]),
        [
          ['admin', ['ADMIN']],
          ['john.doe', ['ADMIN', 'USER']],
        ],
      );
      assert.equal(
        accounts.map((a) => a.id),
        [1, 2],
      );
      assert.equal([...new Set(accounts.flatMap((a) => a.roles.map((r) => `${r.id} ${r.roleName}`)))].sort(), [
        '1 ADMIN',
        '2 USER',
      ]);
    },
  );
  t('three processes saving the same new roles at once, in different orders: ids 1 to 5, without gaps', async () => {
    const all = [stores(), await ctx.sut?.another(), await ctx.sut?.another()].flatMap((s) => (s ? [s] : []));
    const names = ['R1', 'R2', 'R3', 'R4', 'R5'];
    await Promise.all(
      all.map(async (s, i) => {
        const order = i === 1 ? [...names].reverse() : names;
        await Promise.all(order.map((roleName) => s.accounts.saveRole({ roleName })));
      }),
    );
    const saved = await Promise.all(names.map((roleName) => stores().accounts.saveRole({ roleName })));
    assert.equal(saved.map((r) => r.id).sort(), [1, 2, 3, 4, 5]);
  });
  t('saving a user saves its roles (created when missing) and replaces its role set; ids stay', async () => {
    const c = stores().accounts;
    const saved = await c.saveAccount({
      username: 'jane',
      password: HASH,
      roles: [{ roleName: 'AUDITOR', description: 'reads logs' }, { roleName: 'USER' }],
      updatedAt: 1,
    });
    assert.equal(
      saved.roles.map((r) => r.roleName),
      ['AUDITOR', 'USER'],
    );
    assert.is(saved.roles[0]?.description, 'reads logs');
    const again = await c.saveAccount({
      username: 'jane',
      password: HASH,
      firstName: 'Jane',
      roles: [{ roleName: 'USER' }],
      updatedAt: 1,
    });
    assert.is(again.id, saved.id);
    assert.is(again.firstName, 'Jane');
    assert.equal(
      again.roles.map((r) => r.roleName),
      ['USER'],
    );
    assert.equal(await c.findByUsername('jane'), again);
    assert.is(await c.findByUsername('nobody'), undefined);
    assert.is(
      (await c.saveRole({ roleName: 'AUDITOR' })).description,
      'reads logs',
      'a role saved without a description keeps its own',
    );
  });
  t('the change count moves with every change to users or roles, made by this process or another', async () => {
    const c = stores().accounts;
    const other = await ctx.sut?.another();
    assert.ok(other);
    const counts = [await c.changeCount()];
    await other.accounts.saveAccount({ username: 'kim', password: HASH, roles: [{ roleName: 'USER' }], updatedAt: 1 });
    counts.push(await c.changeCount());
    await c.saveRole({ roleName: 'USER', description: 'now described' });
    counts.push(await other.accounts.changeCount());
    await other.accounts.saveAccount({ username: 'kim', password: HASH, roles: [], updatedAt: 1 });
    counts.push(await c.changeCount());
    assert.is(new Set(counts).size, counts.length, `the count did not move: ${counts.join(', ')}`);
    assert.is(await c.changeCount(), await other.accounts.changeCount());
  });
  t.run();
}

const refreshRecord = (over: Partial<RefreshTokenRecord> = {}): RefreshTokenRecord => ({
  tokenHash: newId(),
  loginId: 'login-1',
  clientId: 'troupe-client',
  username: 'john.doe',
  scope: ['read', 'write'],
  issuedAt: 1000,
  expiresAt: 5000,
  usedAt: null,
  revokedAt: null,
  accessExpiresAt: 1500,
  generation: 0,
  accountId: null,
  accountVersion: null,
  authTime: null,
  ...over,
});

function refreshTokens(name: string, target: ContractTarget): void {
  const t = contractSuite('RefreshTokenStore', name, target);
  t('insert and find; a rotation marks the token used and inserts its successor, once', async () => {
    const r = stores().refreshTokens;
    const first = refreshRecord();
    await r.insert(first);
    assert.equal(await r.find(first.tokenHash), first);
    const next = refreshRecord();
    assert.is(await r.rotate(first.tokenHash, next, 2000), 'rotated');
    assert.is((await r.find(first.tokenHash))?.usedAt, 2000);
    assert.equal(await r.find(next.tokenHash), next);
    assert.is(await r.rotate(first.tokenHash, refreshRecord(), 2001), 'spent', 'a used token rotates no more');
    assert.is(await r.find('nothing'), undefined);
  });
  t("a login's auth_time is kept as given, through a rotation; none is kept as none", async () => {
    const r = stores().refreshTokens;
    const first = refreshRecord({ authTime: 990 });
    await r.insert(first);
    assert.is((await r.find(first.tokenHash))?.authTime, 990);
    const next = refreshRecord({ authTime: 990, generation: 1 });
    assert.is(await r.rotate(first.tokenHash, next, 2000), 'rotated');
    assert.equal(await r.find(next.tokenHash), next);
    const none = refreshRecord({ loginId: 'login-2' });
    await r.insert(none);
    assert.is((await r.find(none.tokenHash))?.authTime, null);
  });
  t('a token presented to two processes at once is rotated by exactly one', async () => {
    const other = await ctx.sut?.another();
    assert.ok(other);
    for (let i = 0; i < 5; i++) {
      const token = refreshRecord();
      await stores().refreshTokens.insert(token);
      const wins = await Promise.all([
        stores().refreshTokens.rotate(token.tokenHash, refreshRecord(), 2000),
        other.refreshTokens.rotate(token.tokenHash, refreshRecord(), 2000),
      ]);
      assert.equal(wins.filter((w) => w === 'rotated').length, 1);
      assert.equal(wins.filter((w) => w === 'spent').length, 1);
    }
  });
  t(
    'revoking a login revokes its live tokens only; a revoked token rotates no more; expired ones are purged',
    async () => {
      const r = stores().refreshTokens;
      const a = refreshRecord();
      const b = refreshRecord({ expiresAt: 1500 });
      const other = refreshRecord({ loginId: 'login-2' });
      for (const x of [a, b, other]) await r.insert(x);
      assert.is(await r.revokeLogin('login-1', 3000), 2);
      assert.is(await r.revokeLogin('login-1', 3001), 0);
      assert.is((await r.find(a.tokenHash))?.revokedAt, 3000);
      assert.is((await r.find(other.tokenHash))?.revokedAt, null);
      assert.is(await r.rotate(a.tokenHash, refreshRecord(), 3002), 'stale', 'revoked: read again');
      assert.is(await r.purgeExpired(2000), 1);
      assert.is(await r.find(b.tokenHash), undefined);
    },
  );
  t(
    'live logins of an account, least recently refreshed first; revoked logins are purged after the retention',
    async () => {
      const r = stores().refreshTokens;
      const account = await stores().accounts.createAccount({
        username: 'bounded',
        password: '$2b$10$ou0V7wzSMMLBjrgg7HZmN.2c1W8VDzb41pZwpwGZFDFcWOOQ1NkEK',
        firstName: '',
        lastName: '',
        roles: [],
        enabled: true,
        updatedAt: 1,
      });
      assert.ok(typeof account === 'object');
      const bound = { username: 'bounded', accountId: account.id, accountVersion: 0 };
      const mine = (login: string, issuedAt: number, over: Partial<RefreshTokenRecord> = {}) =>
        refreshRecord({ loginId: login, ...bound, issuedAt, expiresAt: 10_000_000, ...over });
      await r.insert(mine('l-new', 1200));
      await r.insert(mine('l-old', 1100));
      await r.insert(mine('l-expired', 1000, { expiresAt: 1400 }));
      await r.insert(mine('l-revoked', 1000));
      await r.revokeLogin('l-revoked', 1300);
      assert.equal(await r.liveLogins(account.id, 1500), ['l-old', 'l-new']);
      // Another account of the same name (one deleted and made again) has logins of its own.
      assert.ok(await r.insert(refreshRecord({ loginId: 'l-unbound', username: 'bounded', expiresAt: 10_000_000 })));
      assert.equal(await r.liveLogins(account.id, 1500), ['l-old', 'l-new']);
      await r.purgeExpired(1300 + REVOKED_RETENTION_S + 1);
      assert.is((await r.liveLogins(account.id, 1500)).length, 2);
      assert.is(
        (await r.accessHorizon('l-revoked')) ?? 'gone',
        'gone',
        'a login revoked past the retention is deleted though not expired',
      );
    },
  );
  t(`a rotation keeps the newest ${SPENT_WINDOW} spent tokens of the login`, async () => {
    const r = stores().refreshTokens;
    let current = refreshRecord({ loginId: 'login-w', generation: 0 });
    const all = [current];
    await r.insert(current);
    for (let g = 1; g <= SPENT_WINDOW + 3; g++) {
      const next = refreshRecord({ loginId: 'login-w', generation: g });
      assert.is(await r.rotate(current.tokenHash, next, 2000), 'rotated');
      all.push(next);
      current = next;
    }
    const kept = [];
    for (const x of all) if (await r.find(x.tokenHash)) kept.push(x.generation);
    assert.equal(
      kept,
      Array.from({ length: SPENT_WINDOW + 1 }, (_, i) => i + 3),
    );
  });
  t("a login's access horizon is its latest recorded access-token exp; unknown when one lacks it", async () => {
    const r = stores().refreshTokens;
    assert.is(await r.accessHorizon('login-h'), undefined, 'no token');
    await r.insert(refreshRecord({ loginId: 'login-h', accessExpiresAt: 4000 }));
    await r.insert(refreshRecord({ loginId: 'login-h', accessExpiresAt: 3000 }));
    assert.is(await r.accessHorizon('login-h'), 4000);
    await r.insert(refreshRecord({ loginId: 'login-h', accessExpiresAt: null }));
    assert.is(await r.accessHorizon('login-h'), undefined, 'a token stored before it was recorded');
  });
  t.run();
}

function revocations(name: string, target: ContractTarget): void {
  const t = contractSuite('RevocationStore', name, target);
  t('what one process adds, another reads since its cursor; expired entries are left out, then purged', async () => {
    const other = await ctx.sut?.another();
    assert.ok(other);
    const first = await other.revocations.since(0, 100);
    assert.equal(first.revocations, []);
    await stores().revocations.add({ kind: 'token', id: 'jti-1', expiresAt: 500 });
    await stores().revocations.add({ kind: 'login', id: 'login-1', expiresAt: 500 });
    await stores().revocations.add({ kind: 'token', id: 'old', expiresAt: 50 });
    await stores().revocations.add({ kind: 'token', id: 'jti-1', expiresAt: 500 }); // again: nothing new
    const read = await other.revocations.since(first.cursor, 100);
    assert.equal(read.revocations.map((r) => `${r.kind} ${r.id}`).sort(), ['login login-1', 'token jti-1']);
    await stores().revocations.add({ kind: 'token', id: 'jti-2', expiresAt: 500 });
    const next = await other.revocations.since(read.cursor, 100);
    assert.ok(
      next.revocations.some((r) => r.id === 'jti-2'),
      'a later addition is read from the cursor',
    );
    assert.is(await stores().revocations.purgeExpired(100), 1);
    // Added again with a later expiry: the later one is kept, and readers see it again.
    await stores().revocations.add({ kind: 'login', id: 'login-1', expiresAt: 900 });
    await stores().revocations.add({ kind: 'login', id: 'login-1', expiresAt: 700 });
    const widened = await other.revocations.since(next.cursor, 600);
    assert.equal(
      widened.revocations.map(({ kind, id, expiresAt }) => ({ kind, id, expiresAt })),
      [{ kind: 'login', id: 'login-1', expiresAt: 900 }],
    );
    // Tokens revoked one by one are counted per login while live.
    await stores().revocations.add({ kind: 'token', id: 'jti-a', expiresAt: 800, loginId: 'login-9' });
    await stores().revocations.add({ kind: 'token', id: 'jti-b', expiresAt: 300, loginId: 'login-9' });
    await stores().revocations.add({ kind: 'token', id: 'jti-c', expiresAt: 800, loginId: 'login-8' });
    assert.is(await other.revocations.tokensOfLogin('login-9', 100), 2);
    assert.is(await other.revocations.tokensOfLogin('login-9', 400), 1);
  });
  t('a recorded revocation is known at once to another process asking the store itself, until it expires', async () => {
    const other = await ctx.sut?.another();
    assert.ok(other);
    assert.not.ok(await other.revocations.has('login', 'login-1', 100));
    await stores().revocations.add({ kind: 'login', id: 'login-1', expiresAt: 500 });
    assert.ok(await other.revocations.has('login', 'login-1', 100));
    assert.ok(await other.revocations.has('login', 'login-1', 500));
    assert.not.ok(await other.revocations.has('login', 'login-1', 501), 'expired');
    assert.not.ok(await other.revocations.has('token', 'login-1', 100), 'another kind');
  });
  t('through the denylist: a revocation by one process is refused by the other once it looks again', async () => {
    const other = await ctx.sut?.another();
    assert.ok(other);
    const now = () => 100;
    const [a, b] = [createDenylist(stores().revocations, now), createDenylist(other.revocations, now)];
    const mine = { accountId: 1, accountVersion: 0 };
    assert.not.ok(await b.isRevoked({ jti: 'j', loginId: 'l', ...mine }));
    await a.revokeLogin('l', 500);
    await waitUntil(
      async () => b.isRevoked({ jti: 'x', loginId: 'l', ...mine }),
      'the other process to see the revocation',
    );
  });
  t.run();
}

/** Polls `condition` (a revocation may take `security.revocation-sync-ms` to be seen). */
async function waitUntil(condition: () => Promise<boolean>, what: string, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) assert.unreachable(`${what} did not happen within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function addUser(email = `${newId()}@example.com`): Promise<ObjectIdString> {
  const id = newId();
  const result = await stores().users.insert({ id, name: 'Ann', email, createdAt: AT, updatedAt: AT });
  assert.ok(result.ok);
  return id;
}

function userData(name: string, target: ContractTarget): void {
  const t = contractSuite('UserStore and ActivityStore', name, target);
  t(
    'emails are unique compared case-insensitively, for inserts and updates, also between processes; a violation is email_taken',
    async () => {
      const u = stores().users;
      await addUser('Ann@Example.com');
      assert.equal(await u.insert({ id: newId(), name: 'B', email: 'ann@example.COM', createdAt: AT, updatedAt: AT }), {
        ok: false,
        reason: 'email_taken',
      });
      const other = await ctx.sut?.another();
      assert.equal(
        await other?.users.insert({ id: newId(), name: 'C', email: 'ANN@EXAMPLE.COM', createdAt: AT, updatedAt: AT }),
        { ok: false, reason: 'email_taken' },
      );
      const b = await addUser('bob@example.com');
      assert.equal(await u.update(b, 1, { email: 'ANN@example.com', updatedAt: AT }), {
        ok: false,
        reason: 'email_taken',
      });
    },
  );
  t('updates are conditional on the version; unknown ids are not_found; a change bumps the version', async () => {
    const u = stores().users;
    const id = await addUser('dee@example.com');
    assert.equal(await u.update(id, 2, { name: 'X', updatedAt: AT }), { ok: false, reason: 'version_conflict' });
    assert.equal(await u.update(newId(), 1, { name: 'X', updatedAt: AT }), { ok: false, reason: 'not_found' });
    const later = '2026-01-02T00:00:00.000Z';
    assert.equal(await u.update(id, 1, { name: 'Dee', updatedAt: later }), {
      ok: true,
      user: { id, name: 'Dee', email: 'dee@example.com', createdAt: AT, updatedAt: later, version: 2 },
    });
    assert.equal(await u.find(id), {
      id,
      name: 'Dee',
      email: 'dee@example.com',
      createdAt: AT,
      updatedAt: later,
      version: 2,
    });
  });
  t('activities need their user, come newest first in pages, and go with their user', async () => {
    const a = stores().activity;
    const userId = await addUser();
    assert.is(await a.append({ id: newId(), userId: newId(), type: 'LOGIN', detail: {}, at: AT }), undefined);
    assert.is(await a.latestSeq(userId), undefined);
    const saved = [];
    for (let i = 0; i < 3; i++)
      saved.push(
        await a.append({ id: newId(), userId, type: 'STEP', detail: { i, 'odd.key': true, $also: 1 }, at: AT }),
      );
    assert.is(await a.latestSeq(userId), saved[2]?.seq);
    const first = await a.page(userId, { limit: 2 });
    assert.equal([first.items.map((x) => x.detail['i']), first.hasMore], [[2, 1], true]);
    assert.equal(first.items[0]?.detail, { i: 2, 'odd.key': true, $also: 1 });
    const rest = await a.page(userId, { limit: 2, beforeSeq: first.items[1]?.seq });
    assert.equal([rest.items.map((x) => x.detail['i']), rest.hasMore], [[0], false]);
    assert.ok(await stores().users.delete(userId));
    assert.equal((await a.page(userId, { limit: 10 })).items, []);
    assert.is(await stores().users.delete(userId), undefined);
  });
  t('appends from two processes at once get distinct, increasing seqs; both read one order', async () => {
    const userId = await addUser();
    const other = await ctx.sut?.another();
    assert.ok(other);
    const appended = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        (i % 2 === 0 ? stores() : other).activity.append({ id: newId(), userId, type: `T${i}`, detail: {}, at: AT }),
      ),
    );
    const seqs = appended.map((x) => x?.seq ?? -1);
    assert.is(new Set(seqs).size, 20);
    const mine = (await stores().activity.page(userId, { limit: 50 })).items.map((x) => x.id);
    const theirs = (await other.activity.page(userId, { limit: 50 })).items.map((x) => x.id);
    assert.equal(mine, theirs);
    assert.equal(
      mine,
      [...appended].sort((x, y) => (y?.seq ?? 0) - (x?.seq ?? 0)).map((x) => x?.id),
    );
    for (const limit of [1, 5, 50])
      assert.ok((await other.activity.page(userId, { limit })).settled, `every append visible: settled (${limit})`);
    assert.ok((await other.activity.page(await addUser(), { limit: 5 })).settled, 'no activity: settled');
  });
  t.run();
}

function throttle(name: string, target: ContractTarget): void {
  const t = contractSuite('LoginThrottleStore', name, target);
  t('counts of two processes add up; known pairs are shared', async () => {
    const other = await ctx.sut?.another();
    assert.ok(other);
    const settings = { maxFailuresPerUser: 3, maxFailuresPerAddress: 100, windowSeconds: 60 };
    const [a, b] = [createLoginThrottle(settings, stores().throttle), createLoginThrottle(settings, other.throttle)];
    const attempts = await Promise.all(
      Array.from({ length: 8 }, (_, i) => (i % 2 === 0 ? a : b).begin('eve', `10.0.0.${i}`)),
    );
    assert.is(attempts.filter((x) => 'attempt' in x).length, 3);
    assert.not.ok(await other.throttle.isKnown('pair-x'));
    await stores().throttle.remember('pair-x', 100);
    assert.ok(await other.throttle.isKnown('pair-x'));
  });
  t(
    'a count is given back exactly: in its own window only, never below zero, from any process; a key at zero is gone',
    async () => {
      const other = await ctx.sut?.another();
      assert.ok(other);
      const options = { keyPrefix: 'exact', points: 5, duration: 60 };
      const [mine, theirs] = [stores().throttle.counter(options), other.throttle.counter(options)];
      const first = await mine.consume('k');
      const window = stores().throttle.windowOf(first);
      assert.type(window, 'number');
      assert.ok(Math.abs((window ?? 0) - Date.now() - 60_000) < 5_000, 'the window ends a duration after the count');
      assert.is(other.throttle.windowOf(await theirs.consume('k')), window, 'one window for both processes');
      await other.throttle.giveBack(theirs, 'k', (window ?? 0) - 1); // another window: nothing given back
      assert.is((await mine.get('k'))?.consumedPoints, 2);
      await Promise.all([
        stores().throttle.giveBack(mine, 'k', window ?? 0),
        other.throttle.giveBack(theirs, 'k', window ?? 0),
        other.throttle.giveBack(theirs, 'k', window ?? 0),
      ]);
      assert.is(await mine.get('k'), null, 'the key at zero is removed, and never goes below');
      assert.is((await mine.consume('k')).consumedPoints, 1);
    },
  );
  t('a count is read from any process without being changed; a key never counted reads as none', async () => {
    const other = await ctx.sut?.another();
    assert.ok(other);
    const options = { keyPrefix: 'read', points: 5, duration: 60 };
    const [mine, theirs] = [stores().throttle.counter(options), other.throttle.counter(options)];
    await mine.consume('k');
    for (let i = 0; i < 3; i++) {
      const read = await theirs.get('k');
      assert.is(read?.consumedPoints, 1);
      assert.ok((read?.msBeforeNext ?? 0) > 55_000, 'with the rest of its window');
    }
    assert.is(await theirs.get('never'), null);
    assert.is((await mine.consume('k')).consumedPoints, 2, 'reads changed nothing');
    assert.is(await mine.get('never'), null, 'and created nothing');
  });
  t.run();
}

/** Registers every contract suite for the target's database. */
export function storeContracts(name: string, target: ContractTarget): void {
  const setup = suite(`store contracts (${name}): setup`);
  setup('the database is ready', async () => {
    await target.setup?.();
  });
  setup.run();
  accountStoreContract(name, target);
  accountContracts(name, target);
  accountEmails(name, target);
  accountUpdatedAt(name, target);
  seededAccounts(name, target);
  refreshTokens(name, target);
  revocations(name, target);
  userData(name, target);
  throttle(name, target);
  authorizationCodes(name, target);
  consents(name, target);
  consentTickets(name, target);
  sessions(name, target);
  const teardown = suite(`store contracts (${name}): teardown`);
  teardown('the database is released', async () => {
    await target.teardown?.();
  });
  teardown.run();
}

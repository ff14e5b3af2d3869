/**
 * The account administration part of the AccountStore contract (the security version, ids never
 * given twice), the account entries of the RevocationStore and the logins of the RefreshTokenStore
 * as they follow the version, run per adapter by `storeContracts`.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { loadInitialData, readInitialData } from '../../src/composition/initial-data.ts';
import { createDenylist } from '../../src/security/denylist.ts';
import { hashToken, tokenlessLoginKey } from '../../src/security/refresh-tokens.ts';
import type { NewAccount } from '../../src/stores/account-store.ts';
import type { Stores } from '../../src/stores/stores.ts';
import type { ContractTarget, StoresUnderTest } from './contracts.ts';

const HASH = '$2b$10$ou0V7wzSMMLBjrgg7HZmN.2c1W8VDzb41pZwpwGZFDFcWOOQ1NkEK';
/** Epoch seconds of every write here that does not test `updatedAt`. */
const AT = 1_700_000_000;
const account = (username: string, roles: string[] = ['USER']): NewAccount => ({
  username,
  password: HASH,
  firstName: '',
  lastName: '',
  roles,
  enabled: true,
  updatedAt: AT,
});

export function accountContracts(name: string, target: ContractTarget): void {
  const t = suite(`AccountStore accounts contract (${name})`);
  const ctx = {} as { sut: StoresUnderTest | undefined };
  const stores = (): Stores => ctx.sut?.stores ?? (assert.unreachable('no stores opened') as never);
  t.before.each(async () => {
    ctx.sut = await target.open();
    await loadInitialData(stores().accounts, readInitialData('data/initial-data.json'));
  });
  t.after.each(async () => {
    await ctx.sut?.dispose();
    ctx.sut = undefined;
  });

  t('create: a taken username and an unknown role are refused, nothing written', async () => {
    const c = stores().accounts;
    const created = await c.createAccount(account('kim'));
    assert.ok(typeof created === 'object' && created.enabled && created.roles[0]?.roleName === 'USER');
    assert.is(await c.createAccount(account('kim')), 'account.username_taken');
    assert.is(await c.createAccount(account('lee', ['NOPE'])), 'role.unknown');
    assert.is(await c.findByUsername('lee'), undefined);
  });
  t('page: by id after the cursor, filtered by username prefix', async () => {
    const c = stores().accounts;
    for (const u of ['kim', 'kimberly', 'lee']) await c.createAccount(account(u));
    const first = await c.page({ usernamePrefix: 'kim', afterId: 0, limit: 1 });
    assert.equal(
      first.map((a) => a.username),
      ['kim'],
    );
    const next = await c.page({ usernamePrefix: 'kim', afterId: first[0]?.id ?? 0, limit: 5 });
    assert.equal(
      next.map((a) => a.username),
      ['kimberly'],
    );
  });
  t('update, password and delete; the last enabled ADMIN is never disabled, demoted or deleted', async () => {
    const c = stores().accounts;
    const admin = await c.findByUsername('admin');
    const john = await c.findByUsername('john.doe');
    assert.ok(admin && john);
    const changed = await c.updateAccount(john.id, { roles: ['USER'], firstName: 'Johnny' }, 'ADMIN', AT);
    assert.ok(typeof changed === 'object' && changed.firstName === 'Johnny');
    assert.is(await c.updateAccount(admin.id, { enabled: false }, 'ADMIN', AT), 'account.last_admin');
    assert.is(await c.updateAccount(admin.id, { roles: ['USER'] }, 'ADMIN', AT), 'account.last_admin');
    assert.is(await c.deleteAccount(admin.id, 'ADMIN'), 'account.last_admin');
    assert.is((await c.findById(admin.id))?.enabled, true, 'a refused change writes nothing');
    assert.is(await c.updateAccount(john.id, { roles: ['GHOST'] }, 'ADMIN', AT), 'role.unknown');
    assert.equal(
      (await c.findById(john.id))?.roles.map((r) => r.roleName),
      ['USER'],
    );
    const moved = await c.setPassword(john.id, HASH.replace('ou0', 'xx0'));
    assert.ok(typeof moved === 'object' && moved.password !== HASH);
    assert.equal(await c.deleteAccount(john.id, 'ADMIN'), moved);
    assert.is(await c.findById(john.id), undefined);
    assert.is(await c.deleteAccount(john.id, 'ADMIN'), 'account.not_found');
    assert.is(await c.setPassword(john.id, HASH), 'account.not_found');
  });
  t('roles: created once by name; the seed never overwrites an account changed since', async () => {
    const c = stores().accounts;
    const role = await c.createRole({ roleName: 'AUDITOR', description: 'reads logs' });
    assert.ok(typeof role === 'object' && role.description === 'reads logs');
    assert.is(await c.createRole({ roleName: 'AUDITOR', description: '' }), 'role.name_taken');
    const john = await c.findByUsername('john.doe');
    assert.ok(john);
    await c.updateAccount(john.id, { enabled: false, roles: ['USER'] }, 'ADMIN', AT);
    await loadInitialData(c, readInitialData('data/initial-data.json'));
    const after = await c.findById(john.id);
    assert.is(after?.enabled, false);
    assert.equal(
      after?.roles.map((r) => r.roleName),
      ['USER'],
    );
    assert.ok((await c.listRoles()).some((r) => r.roleName === 'AUDITOR'));
  });
  t('each change that cuts access moves the security version; another process refuses the older tokens', async () => {
    const c = stores().accounts;
    const other = await ctx.sut?.another();
    assert.ok(other);
    const there = createDenylist(other.revocations, () => 1000);
    const kim = await c.createAccount(account('kim'));
    assert.ok(typeof kim === 'object');
    assert.is(kim.securityVersion, 0);
    const token = (accountVersion: number, accountId = kim.id) => ({
      jti: `j${accountId}-${accountVersion}`,
      loginId: undefined,
      accountId,
      accountVersion,
    });
    const versionAfter = async (write: Promise<unknown>): Promise<number | undefined> => {
      await write;
      return (await c.findById(kim.id))?.securityVersion;
    };
    assert.is(await versionAfter(c.updateAccount(kim.id, { firstName: 'Kim' }, 'ADMIN', AT)), 0, 'a name is no cut');
    assert.is(await versionAfter(c.updateAccount(kim.id, { roles: ['USER'] }, 'ADMIN', AT)), 0, 'the same roles');
    assert.is(await versionAfter(c.updateAccount(kim.id, { roles: ['USER', 'ADMIN'] }, 'ADMIN', AT)), 1, 'roles');
    assert.is(await there.isRevoked(token(0)), true);
    assert.is(await there.isRevoked(token(1)), false);
    assert.is(await versionAfter(c.updateAccount(kim.id, { enabled: false }, 'ADMIN', AT)), 2, 'disabled');
    assert.is(await versionAfter(c.updateAccount(kim.id, { enabled: true }, 'ADMIN', AT)), 3, 'enabled again');
    assert.is(await versionAfter(c.setPassword(kim.id, HASH)), 4, 'a password set');
    assert.is(await versionAfter(c.endLogins(kim.id)), 5, 'every login ended');
    assert.is(await there.isRevoked(token(4)), true);
    assert.is(await there.isRevoked(token(5)), false);
    assert.is(await there.isRevoked(token(0, kim.id + 1000)), false, 'another account is untouched');
    assert.is(await c.endLogins(kim.id + 1000), 'account.not_found');
    assert.ok(typeof (await c.deleteAccount(kim.id, 'ADMIN')) === 'object');
    assert.is(await there.isRevoked(token(5)), true, 'a deleted account refuses every version');
  });
  t(
    'replaceHash: written only over the hash compared, the security version unmoved, the change count moved',
    async () => {
      const c = stores().accounts;
      const kim = await c.createAccount(account('kim'));
      assert.ok(typeof kim === 'object');
      const rehashed = HASH.replace('$2b$10$', '$2b$12$');
      const count = await c.changeCount();
      assert.is(await c.replaceHash(kim.id, HASH, rehashed), true);
      const after = await c.findById(kim.id);
      assert.is(after?.password, rehashed);
      assert.is(after?.securityVersion, kim.securityVersion, 'nothing minted from the account is refused for it');
      assert.ok((await c.changeCount()) !== count, 'the change count moved');
      // A password set since the comparison: the rehash of the older one is not written.
      const reset = await c.setPassword(kim.id, HASH.replace('ou0', 'xx0'));
      assert.ok(typeof reset === 'object');
      assert.is(await c.replaceHash(kim.id, rehashed, HASH), false);
      assert.is((await c.findById(kim.id))?.password, reset.password);
      assert.is(await c.replaceHash(kim.id + 1000, HASH, rehashed), false, 'an unknown account');
    },
  );
  t('account ids are never given twice: an account created after a delete gets a new id', async () => {
    const c = stores().accounts;
    const kim = await c.createAccount(account('kim'));
    assert.ok(typeof kim === 'object');
    assert.ok(typeof (await c.deleteAccount(kim.id, 'ADMIN')) === 'object');
    const again = await c.createAccount(account('kim'));
    assert.ok(typeof again === 'object');
    assert.ok(again.id > kim.id, `${again.id} after ${kim.id}`);
    const other = await ctx.sut?.another();
    assert.ok(other);
    const third = await other.accounts.createAccount(account('lee'));
    assert.ok(typeof third === 'object' && third.id > again.id);
  });
  t('a role change carries the live logins on; a password set carries only the kept one', async () => {
    const c = stores().accounts;
    const r = stores().refreshTokens;
    const kim = await c.createAccount(account('kim'));
    assert.ok(typeof kim === 'object');
    const login = (loginId: string, accountVersion: number) => ({
      tokenHash: `${loginId}-${accountVersion}`,
      loginId,
      clientId: 'troupe-client',
      username: 'kim',
      scope: ['read'],
      issuedAt: 1000,
      expiresAt: 9000,
      usedAt: null,
      revokedAt: null,
      accessExpiresAt: 1500,
      generation: 0,
      accountId: kim.id,
      accountVersion,
      authTime: null,
    });
    assert.ok(await r.insert(login('a', 0)));
    assert.ok(await r.insert(login('b', 0)));
    assert.not.ok(await r.insert(login('stale', 1)), 'a version the account does not have');
    assert.is(await r.find('stale-1'), undefined);
    await c.updateAccount(kim.id, { roles: ['USER', 'ADMIN'] }, 'ADMIN', AT);
    assert.equal([(await r.find('a-0'))?.accountVersion, (await r.find('b-0'))?.accountVersion], [1, 1]);
    await c.setPassword(kim.id, HASH, 'b');
    assert.equal([(await r.find('a-0'))?.accountVersion, (await r.find('b-0'))?.accountVersion], [1, 2]);
    assert.is(await r.rotate('a-0', { ...login('a', 1), tokenHash: 'a-next' }, 1100), 'stale');
    assert.is(await r.rotate('b-0', { ...login('b', 1), tokenHash: 'b-wrong' }, 1100), 'stale', 'not its version');
    assert.is(await r.rotate('b-0', { ...login('b', 2), tokenHash: 'b-next' }, 1100), 'rotated');
    assert.is((await r.find('b-next'))?.accountVersion, 2);
    await c.updateAccount(kim.id, { enabled: false }, 'ADMIN', AT);
    assert.is(await r.rotate('b-next', { ...login('b', 2), tokenHash: 'b-last' }, 1200), 'stale', 'disabled');
    assert.not.ok(await r.insert(login('c', 3)), 'a disabled account gets no login');
    await c.updateAccount(kim.id, { enabled: true }, 'ADMIN', AT);
    assert.is((await r.find('b-next'))?.accountVersion, 2, 'enabled again: no login of before comes back');
  });
  t('the live logins of an account, with their client and times', async () => {
    const r = stores().refreshTokens;
    const kim = await stores().accounts.createAccount(account('kim'));
    assert.ok(typeof kim === 'object');
    const record = { clientId: 'troupe-client', username: 'kim', scope: ['read'], usedAt: null, revokedAt: null };
    const rest = { expiresAt: 9000, accessExpiresAt: 1500, accountId: kim.id, accountVersion: 0, authTime: null };
    await r.insert({ ...record, ...rest, tokenHash: 'a', loginId: 'f1', issuedAt: 1000, generation: 0 });
    await r.rotate('a', { ...record, ...rest, tokenHash: 'b', loginId: 'f1', issuedAt: 1200, generation: 1 }, 1200);
    await r.insert({ ...record, ...rest, tokenHash: 'c', loginId: 'f2', issuedAt: 1100, generation: 0 });
    assert.equal(await r.loginsOf(kim.id, 1300), [
      { loginId: 'f2', clientId: 'troupe-client', createdAt: 1100, refreshedAt: 1100, expiresAt: 9000 },
      { loginId: 'f1', clientId: 'troupe-client', createdAt: 1000, refreshedAt: 1200, expiresAt: 9000 },
    ]);
  });
  t(
    'a login without refresh tokens: written only at its account version, listed until its access token expires',
    async () => {
      const r = stores().refreshTokens;
      const kim = await stores().accounts.createAccount(account('kim'));
      assert.ok(typeof kim === 'object');
      const tokenless = (loginId: string, accountVersion: number) => ({
        tokenHash: tokenlessLoginKey(loginId),
        loginId,
        clientId: 'widget',
        username: 'kim',
        scope: ['read'],
        issuedAt: 1000,
        expiresAt: 1500,
        usedAt: null,
        revokedAt: null,
        accessExpiresAt: 1500,
        generation: 0,
        accountId: kim.id,
        accountVersion,
        authTime: null,
      });
      assert.not.ok(await r.insert(tokenless('stale', 1)), 'a version the account does not have');
      assert.ok(await r.insert(tokenless('w1', 0)));
      assert.ok(await r.insert(tokenless('w2', 0)));
      assert.equal(await r.liveLogins(kim.id, 1400), ['w1', 'w2']);
      assert.equal((await r.loginsOf(kim.id, 1400))[0], {
        loginId: 'w1',
        clientId: 'widget',
        createdAt: 1000,
        refreshedAt: 1000,
        expiresAt: 1500,
      });
      assert.is(await r.accessHorizon('w1'), 1500);
      assert.is(await r.revokeLogin('w1', 1400), 1);
      assert.equal(await r.liveLogins(kim.id, 1400), ['w2']);
      assert.equal(await r.liveLogins(kim.id, 1500), [], 'over with its access token');
      // No token presented can find it: the key is not of the form of any token's hash.
      assert.not.equal(tokenlessLoginKey('w2'), hashToken(tokenlessLoginKey('w2')));
      assert.not.match(tokenlessLoginKey('w2'), /^[A-Za-z0-9_-]{43}$/);
      assert.is(await r.purgeExpired(1501), 2);
    },
  );
  t.run();
}

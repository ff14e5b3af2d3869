/**
 * The seeded accounts of the AccountStore contract: each account of the initial data is applied once
 * per store, and one deleted since is not created again by any process; run per adapter by
 * `storeContracts`.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { loadInitialData, readInitialData } from '../../src/composition/initial-data.ts';
import type { NewAccount } from '../../src/stores/account-store.ts';
import type { Stores } from '../../src/stores/stores.ts';
import type { ContractTarget, StoresUnderTest } from './contracts.ts';

const HASH = '$2b$10$ou0V7wzSMMLBjrgg7HZmN.2c1W8VDzb41pZwpwGZFDFcWOOQ1NkEK';
const account = (username: string, roles: string[] = ['USER']): NewAccount => ({
  username,
  password: HASH,
  firstName: '',
  lastName: '',
  roles,
  enabled: true,
  updatedAt: 1,
});

export function seededAccounts(name: string, target: ContractTarget): void {
  const t = suite(`AccountStore seeded accounts contract (${name})`);
  const ctx = {} as { sut: StoresUnderTest | undefined };
  const stores = (): Stores => ctx.sut?.stores ?? (assert.unreachable('no stores opened') as never);
  const another = async (): Promise<Stores> =>
    (await ctx.sut?.another()) ?? (assert.unreachable('no second process') as never);
  t.before.each(async () => {
    ctx.sut = await target.open();
    await stores().accounts.createRole({ roleName: 'USER', description: '' });
  });
  t.after.each(async () => {
    await ctx.sut?.dispose();
    ctx.sut = undefined;
  });

  t('a seeded account is created once; deleted, it is not created again, by this process or another', async () => {
    const c = stores().accounts;
    assert.is(await c.seedAccount(account('kim')), 'created');
    assert.is(await c.seedAccount(account('kim')), 'present');
    const kim = await c.findByUsername('kim');
    assert.ok(kim);
    assert.equal(await c.deleteAccount(kim.id, 'ADMIN'), kim);
    assert.is(await c.seedAccount(account('kim')), 'deleted');
    assert.is(await (await another()).accounts.seedAccount(account('kim')), 'deleted');
    assert.is(await c.findByUsername('kim'), undefined);
  });
  t(
    'the initial data, loaded again after a seeded account was deleted: it stays deleted, and is reported',
    async () => {
      const data = readInitialData('data/initial-data.json');
      const first = await loadInitialData(stores().accounts, data);
      assert.equal(first, { created: ['admin', 'john.doe'], deleted: [], unfinished: [] });
      const admin = await stores().accounts.findByUsername('admin');
      assert.ok(admin);
      assert.equal(await stores().accounts.deleteAccount(admin.id, 'ADMIN'), admin);
      const later = await loadInitialData((await another()).accounts, data);
      assert.equal(later, { created: [], deleted: ['admin'], unfinished: [] });
      assert.equal(
        (await stores().accounts.listAll()).map((a) => a.username),
        ['john.doe'],
      );
    },
  );
  t(
    'an account the store had before seeding recorded it (an upgrade, or administration) is recorded, never changed',
    async () => {
      const c = stores().accounts;
      const made = await c.createAccount({ ...account('lee'), firstName: 'Lee' });
      assert.ok(typeof made === 'object');
      assert.is(await c.seedAccount(account('lee')), 'present');
      assert.equal(await c.findByUsername('lee'), made);
      await c.deleteAccount(made.id, 'ADMIN');
      assert.is(await c.seedAccount(account('lee')), 'deleted');
      assert.is(await c.findByUsername('lee'), undefined);
    },
  );
  t('a deleted seeded account created again through administration is kept as administration made it', async () => {
    const c = stores().accounts;
    await c.seedAccount(account('kim'));
    const kim = await c.findByUsername('kim');
    assert.ok(kim);
    await c.deleteAccount(kim.id, 'ADMIN');
    const again = await c.createAccount({ ...account('kim', []), firstName: 'Kim' });
    assert.ok(typeof again === 'object' && again.id !== kim.id);
    assert.is(await c.seedAccount(account('kim')), 'present');
    assert.equal(await c.findByUsername('kim'), again);
  });
  t('three processes seeding one account at once: one creates it, none reports it deleted', async () => {
    const all = [stores(), await another(), await another()];
    const outcomes = await Promise.all(all.map((s) => s.accounts.seedAccount(account('kim'))));
    assert.equal(
      outcomes.filter((o) => o === 'created'),
      ['created'],
    );
    assert.not.ok(outcomes.includes('deleted'), outcomes.join());
    assert.equal(
      (await stores().accounts.listAll()).map((a) => a.username),
      ['kim'],
    );
  });
  t('a role that does not exist: refused, nothing recorded, so a later seed creates the account', async () => {
    const c = stores().accounts;
    assert.is(await c.seedAccount(account('kim', ['AUDITOR'])), 'role.unknown');
    assert.is(await c.findByUsername('kim'), undefined);
    await c.createRole({ roleName: 'AUDITOR', description: '' });
    assert.is(await c.seedAccount(account('kim', ['AUDITOR'])), 'created');
    assert.equal(
      (await c.findByUsername('kim'))?.roles.map((r) => r.roleName),
      ['AUDITOR'],
    );
  });

  t.run();
}

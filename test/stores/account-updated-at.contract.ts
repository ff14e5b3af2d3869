/**
 * The `updatedAt` of the AccountStore contract: the time a profile field (username, first or last
 * name, email) last changed, written by the writes that change one and by no other, carried by
 * every read; run per adapter by `storeContracts`.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { AccountRecord, AccountStore, NewAccount } from '../../src/stores/account-store.ts';
import type { Stores } from '../../src/stores/stores.ts';
import type { ContractTarget, StoresUnderTest } from './contracts.ts';

const HASH = '$2b$10$ou0V7wzSMMLBjrgg7HZmN.2c1W8VDzb41pZwpwGZFDFcWOOQ1NkEK';
/** The time each account here is made; every later write names a time of its own. */
const MADE = 1_700_000_000;
const account = (username: string, email: string | null = null, roles: string[] = ['USER']): NewAccount => ({
  username,
  password: HASH,
  firstName: 'Kim',
  lastName: 'Lee',
  email,
  roles,
  enabled: true,
  updatedAt: MADE,
});

export function accountUpdatedAt(name: string, target: ContractTarget): void {
  const t = suite(`AccountStore updatedAt contract (${name})`);
  const ctx = {} as { sut: StoresUnderTest | undefined };
  const stores = (): Stores => ctx.sut?.stores ?? (assert.unreachable('no stores opened') as never);
  const created = async (c: AccountStore, a: NewAccount): Promise<AccountRecord> => {
    const made = await c.createAccount(a);
    if (typeof made === 'string') return assert.unreachable(`${a.username}: ${made}`) as never;
    return made;
  };
  /** The account's updatedAt after `write`, read back from the store. */
  const stampAfter = async (c: AccountStore, id: number, write: Promise<unknown>): Promise<number | undefined> => {
    await write;
    return (await c.findById(id))?.updatedAt;
  };
  t.before.each(async () => {
    ctx.sut = await target.open();
    for (const roleName of ['USER', 'ADMIN']) await stores().accounts.createRole({ roleName, description: '' });
  });
  t.after.each(async () => {
    await ctx.sut?.dispose();
    ctx.sut = undefined;
  });

  t('create: the time given, carried by every read and seen by another process', async () => {
    const c = stores().accounts;
    const kim = await created(c, account('kim', 'kim@example.com'));
    assert.is(kim.updatedAt, MADE);
    assert.is((await c.findById(kim.id))?.updatedAt, MADE);
    assert.is((await c.findByUsername('kim'))?.updatedAt, MADE);
    assert.equal(
      (await c.page({ usernamePrefix: '', afterId: 0, limit: 5 })).map((a) => a.updatedAt),
      [MADE],
    );
    assert.equal(
      (await c.listAll()).map((a) => a.updatedAt),
      [MADE],
    );
    const other = await ctx.sut?.another();
    assert.is((await other?.accounts.findById(kim.id))?.updatedAt, MADE);
  });

  t('update: a change of first name, last name or email takes the time of the change', async () => {
    const c = stores().accounts;
    const kim = await created(c, account('kim', 'kim@example.com'));
    const at = (changes: Parameters<AccountStore['updateAccount']>[1], time: number) =>
      stampAfter(c, kim.id, c.updateAccount(kim.id, changes, 'ADMIN', time));
    assert.is(await at({ firstName: 'Kimberly' }, MADE + 1), MADE + 1, 'first name');
    assert.is(await at({ lastName: 'Li' }, MADE + 2), MADE + 2, 'last name');
    assert.is(await at({ email: 'kim.li@example.com' }, MADE + 3), MADE + 3, 'email');
    assert.is(await at({ email: 'Kim.Li@example.com' }, MADE + 4), MADE + 4, 'the email in another case');
    assert.is(await at({ email: null }, MADE + 5), MADE + 5, 'the email cleared');
    assert.is(await at({ firstName: 'Kim', roles: ['USER', 'ADMIN'] }, MADE + 6), MADE + 6, 'with roles');
    const other = await ctx.sut?.another();
    assert.is((await other?.accounts.findById(kim.id))?.updatedAt, MADE + 6, 'another process reads it');
  });

  t('update: roles or enabled alone, or names given as they are, leave the time', async () => {
    const c = stores().accounts;
    const kim = await created(c, account('kim', 'kim@example.com'));
    const at = (changes: Parameters<AccountStore['updateAccount']>[1], time: number) =>
      stampAfter(c, kim.id, c.updateAccount(kim.id, changes, 'ADMIN', time));
    assert.is(await at({ roles: ['USER', 'ADMIN'] }, MADE + 1), MADE, 'roles');
    assert.is(await at({ enabled: false }, MADE + 2), MADE, 'disabled');
    assert.is(await at({ enabled: true }, MADE + 3), MADE, 'enabled again');
    assert.is(await at({ firstName: 'Kim', lastName: 'Lee', email: 'kim@example.com' }, MADE + 4), MADE, 'as they are');
    assert.is(await at({}, MADE + 5), MADE, 'nothing');
  });

  t('update: a refused change leaves the time', async () => {
    const c = stores().accounts;
    const lee = await created(c, account('lee', 'lee@example.com', ['USER', 'ADMIN']));
    const kim = await created(c, account('kim', 'kim@example.com', ['ADMIN']));
    await c.updateAccount(kim.id + 1000, { firstName: 'X' }, 'ADMIN', MADE + 1);
    const taken = c.updateAccount(kim.id, { firstName: 'X', email: 'LEE@example.com' }, 'ADMIN', MADE + 2);
    assert.is(await stampAfter(c, kim.id, taken), MADE, 'account.email_taken');
    await c.updateAccount(lee.id, { enabled: false }, 'ADMIN', MADE + 3);
    const last = c.updateAccount(kim.id, { firstName: 'X', enabled: false }, 'ADMIN', MADE + 4);
    assert.is(await last, 'account.last_admin');
    assert.is((await c.findById(kim.id))?.updatedAt, MADE, 'account.last_admin');
  });

  t('a password, an ended login or a rehash leave the time', async () => {
    const c = stores().accounts;
    const kim = await created(c, account('kim'));
    assert.is(await stampAfter(c, kim.id, c.setPassword(kim.id, HASH.replace('ou0', 'ou1'))), MADE, 'password');
    assert.is(await stampAfter(c, kim.id, c.endLogins(kim.id)), MADE, 'logins ended');
    assert.is(await stampAfter(c, kim.id, c.replaceHash(kim.id, HASH.replace('ou0', 'ou1'), HASH)), MADE, 'rehash');
  });

  t('seed: a created account has the time given; one present is left as it is', async () => {
    const c = stores().accounts;
    assert.is(await c.seedAccount(account('kim')), 'created');
    assert.is((await c.findByUsername('kim'))?.updatedAt, MADE);
    assert.is(await c.seedAccount({ ...account('kim'), firstName: 'Other', updatedAt: MADE + 9 }), 'present');
    assert.is((await c.findByUsername('kim'))?.updatedAt, MADE);
  });

  t('save: made and renamed accounts take the time given; the same names leave it', async () => {
    const c = stores().accounts;
    const save = (firstName: string, updatedAt: number) =>
      c.saveAccount({ username: 'kim', password: HASH, firstName, roles: [{ roleName: 'USER' }], updatedAt });
    assert.is((await save('Kim', MADE)).updatedAt, MADE, 'made');
    assert.is((await save('Kim', MADE + 1)).updatedAt, MADE, 'the same names');
    assert.is((await save('Kimberly', MADE + 2)).updatedAt, MADE + 2, 'renamed');
  });

  t.run();
}

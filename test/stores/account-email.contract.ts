/**
 * The emails of the AccountStore contract: optional, carried by every read, unique among accounts
 * compared case-insensitively, cleared with null; run per adapter by `storeContracts`.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { AccountRecord, AccountStore, NewAccount } from '../../src/stores/account-store.ts';
import type { Stores } from '../../src/stores/stores.ts';
import type { ContractTarget, StoresUnderTest } from './contracts.ts';

const HASH = '$2b$10$ou0V7wzSMMLBjrgg7HZmN.2c1W8VDzb41pZwpwGZFDFcWOOQ1NkEK';
/** Epoch seconds of every write here that does not test `updatedAt`. */
const AT = 1_700_000_000;
const account = (username: string, email?: string | null, roles: string[] = ['USER']): NewAccount => ({
  username,
  password: HASH,
  firstName: '',
  lastName: '',
  ...(email === undefined ? {} : { email }),
  roles,
  enabled: true,
  updatedAt: AT,
});

export function accountEmails(name: string, target: ContractTarget): void {
  const t = suite(`AccountStore emails contract (${name})`);
  const ctx = {} as { sut: StoresUnderTest | undefined };
  const stores = (): Stores => ctx.sut?.stores ?? (assert.unreachable('no stores opened') as never);
  /** The account created, or the test fails with the refusal. */
  const created = async (c: AccountStore, a: NewAccount): Promise<AccountRecord> => {
    const made = await c.createAccount(a);
    if (typeof made === 'string') return assert.unreachable(`${a.username}: ${made}`) as never;
    return made;
  };
  t.before.each(async () => {
    ctx.sut = await target.open();
    for (const roleName of ['USER', 'ADMIN']) await stores().accounts.createRole({ roleName, description: '' });
  });
  t.after.each(async () => {
    await ctx.sut?.dispose();
    ctx.sut = undefined;
  });

  t('create: the email is kept as given and carried by every read; none is null', async () => {
    const c = stores().accounts;
    const kim = await created(c, account('kim', 'Kim.Lee@Example.com'));
    assert.is(kim.email, 'Kim.Lee@Example.com');
    assert.is((await created(c, account('lee'))).email, null, 'absent: none');
    assert.is((await created(c, account('max', null))).email, null, 'null: none');
    assert.is((await c.findById(kim.id))?.email, 'Kim.Lee@Example.com');
    assert.is((await c.findByUsername('kim'))?.email, 'Kim.Lee@Example.com');
    assert.equal(
      (await c.page({ usernamePrefix: '', afterId: 0, limit: 10 })).map((a) => [a.username, a.email]),
      [
        ['kim', 'Kim.Lee@Example.com'],
        ['lee', null],
        ['max', null],
      ],
    );
    assert.equal(
      (await c.listAll()).map((a) => a.email),
      ['Kim.Lee@Example.com', null, null],
    );
    const other = await ctx.sut?.another();
    assert.is((await other?.accounts.findById(kim.id))?.email, 'Kim.Lee@Example.com', 'another process reads it');
  });

  t('create: an email another account has, in whichever case, is refused and nothing is written', async () => {
    const c = stores().accounts;
    await created(c, account('kim', 'kim@example.com'));
    const count = await c.changeCount();
    assert.is(await c.createAccount(account('lee', 'KIM@Example.COM')), 'account.email_taken');
    assert.is(await c.findByUsername('lee'), undefined);
    assert.is(await c.changeCount(), count, 'nothing written');
    assert.is(await c.createAccount(account('kim', 'other@example.com')), 'account.username_taken');
    assert.is(await c.createAccount(account('kim', 'KIM@example.com')), 'account.username_taken', 'the username first');
    const other = await ctx.sut?.another();
    assert.is(await other?.accounts.createAccount(account('max', 'kim@EXAMPLE.com')), 'account.email_taken');
  });

  t('accounts without an email: as many as made, and as many as cleared', async () => {
    const c = stores().accounts;
    const ids: number[] = [];
    for (const u of ['ann', 'bob', 'cy']) ids.push((await created(c, account(u))).id);
    const dee = await created(c, account('dee', 'dee@example.com'));
    const eve = await created(c, account('eve', 'eve@example.com'));
    for (const one of [dee, eve]) {
      const cleared = await c.updateAccount(one.id, { email: null }, 'ADMIN', AT);
      assert.ok(typeof cleared === 'object' && cleared.email === null);
    }
    assert.equal(
      (await c.listAll()).map((a) => a.email),
      [null, null, null, null, null],
    );
  });

  t('update: an email set, changed, kept when absent, cleared with null, and given to another after', async () => {
    const c = stores().accounts;
    const kim = await created(c, account('kim'));
    const lee = await created(c, account('lee', 'lee@example.com'));
    const set = await c.updateAccount(kim.id, { email: 'kim@example.com' }, 'ADMIN', AT);
    assert.ok(typeof set === 'object' && set.email === 'kim@example.com');
    assert.is(set.securityVersion, kim.securityVersion, 'an email alone cuts no access');
    const named = await c.updateAccount(kim.id, { firstName: 'Kim' }, 'ADMIN', AT);
    assert.ok(typeof named === 'object' && named.email === 'kim@example.com', 'absent: kept');
    const recased = await c.updateAccount(kim.id, { email: 'Kim@Example.com' }, 'ADMIN', AT);
    assert.ok(typeof recased === 'object' && recased.email === 'Kim@Example.com', 'its own, in another case');
    const cleared = await c.updateAccount(kim.id, { email: null }, 'ADMIN', AT);
    assert.ok(typeof cleared === 'object' && cleared.email === null && cleared.firstName === 'Kim');
    assert.is((await c.findById(kim.id))?.email, null);
    const taken = await c.updateAccount(lee.id, { email: 'KIM@example.com' }, 'ADMIN', AT);
    assert.ok(typeof taken === 'object' && taken.email === 'KIM@example.com', 'a cleared email is free');
  });

  t(
    'update: an email another account has, in whichever case, is refused with nothing of the change written',
    async () => {
      const c = stores().accounts;
      const kim = await created(c, account('kim', 'kim@example.com'));
      const lee = await created(c, account('lee', 'lee@example.com'));
      const change = { email: 'KIM@EXAMPLE.COM', firstName: 'Lee' };
      assert.is(await c.updateAccount(lee.id, change, 'ADMIN', AT), 'account.email_taken');
      assert.is(
        await c.updateAccount(lee.id, { ...change, roles: ['USER', 'ADMIN'] }, 'ADMIN', AT),
        'account.email_taken',
      );
      const after = await c.findById(lee.id);
      assert.equal(
        [after?.email, after?.firstName, after?.roles.map((r) => r.roleName), after?.securityVersion],
        ['lee@example.com', '', ['USER'], lee.securityVersion],
      );
      assert.is((await c.findById(kim.id))?.email, 'kim@example.com');
      assert.is(await c.updateAccount(kim.id + 1000, { email: 'x@example.com' }, 'ADMIN', AT), 'account.not_found');
    },
  );
  t.run();
}

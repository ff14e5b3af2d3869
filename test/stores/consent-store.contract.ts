/** The ConsentStore contract, run per adapter by `storeContracts`. */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { AccountRecord, NewAccount } from '../../src/stores/account-store.ts';
import type { Stores } from '../../src/stores/stores.ts';
import type { ContractTarget, StoresUnderTest } from './contracts.ts';

const HASH = '$2b$10$ou0V7wzSMMLBjrgg7HZmN.2c1W8VDzb41pZwpwGZFDFcWOOQ1NkEK';
const ADMIN: NewAccount = {
  username: 'root',
  password: HASH,
  firstName: '',
  lastName: '',
  roles: [],
  enabled: true,
  updatedAt: 1,
};

export function consents(name: string, target: ContractTarget): void {
  const ctx = {} as { sut: StoresUnderTest | undefined };
  const stores = (): Stores => ctx.sut?.stores ?? (assert.unreachable('no stores opened') as never);
  const t = suite(`ConsentStore contract (${name})`);
  const newAccount = async (username: string): Promise<AccountRecord> => {
    const created = await stores().accounts.createAccount({ ...ADMIN, username });
    if (typeof created === 'string') return assert.unreachable(created) as never;
    return created;
  };
  t.before.each(async () => {
    ctx.sut = await target.open();
  });
  t.after.each(async () => {
    await ctx.sut?.dispose();
    ctx.sut = undefined;
  });

  t('grant adds to what was allowed; find and list read it back; withdraw forgets it once', async () => {
    const kim = await newAccount('kim');
    const c = stores().consents;
    assert.is(await c.find(kim.id, 'web-app'), undefined);
    assert.equal(await c.grant(kim.id, 'web-app', ['read'], 100), {
      accountId: kim.id,
      clientId: 'web-app',
      scopes: ['read'],
      grantedAt: 100,
      updatedAt: 100,
    });
    await c.grant(kim.id, 'web-app', ['write', 'read'], 200);
    assert.equal(await c.find(kim.id, 'web-app'), {
      accountId: kim.id,
      clientId: 'web-app',
      scopes: ['read', 'write'],
      grantedAt: 100,
      updatedAt: 200,
    });
    await c.grant(kim.id, 'spa', ['read'], 300);
    assert.equal(
      (await c.list(kim.id)).map((r) => [r.clientId, r.scopes]),
      [
        ['spa', ['read']],
        ['web-app', ['read', 'write']],
      ],
    );
    assert.is(await c.withdraw(kim.id, 'web-app'), true);
    assert.is(await c.withdraw(kim.id, 'web-app'), false);
    assert.is(await c.find(kim.id, 'web-app'), undefined);
    assert.equal(
      (await c.list(kim.id)).map((r) => r.clientId),
      ['spa'],
    );
  });

  t('consents are per account; an unknown account keeps none', async () => {
    const kim = await newAccount('kim');
    const lee = await newAccount('lee');
    await stores().consents.grant(kim.id, 'web-app', ['read'], 100);
    assert.equal(await stores().consents.list(lee.id), []);
    assert.is(await stores().consents.grant(999_999, 'web-app', ['read'], 100), undefined);
    assert.equal(await stores().consents.list(999_999), []);
  });

  t('two processes granting at once: every scope of both is kept', async () => {
    const kim = await newAccount('kim');
    const other = await ctx.sut?.another();
    assert.ok(other);
    await Promise.all([
      stores().consents.grant(kim.id, 'web-app', ['read'], 100),
      other.consents.grant(kim.id, 'web-app', ['write'], 100),
    ]);
    assert.equal([...((await other.consents.find(kim.id, 'web-app'))?.scopes ?? [])].sort(), ['read', 'write']);
  });

  t('deleting an account deletes its consents', async () => {
    const kim = await newAccount('kim');
    await stores().consents.grant(kim.id, 'web-app', ['read'], 100);
    await stores().accounts.deleteAccount(kim.id, 'ADMIN');
    assert.equal(await stores().consents.list(kim.id), []);
    assert.is(await stores().consents.find(kim.id, 'web-app'), undefined);
  });

  t.run();
}

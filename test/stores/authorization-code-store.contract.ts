/** The AuthorizationCodeStore contract, run per adapter by `storeContracts`. */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { newId } from '../../src/ids.ts';
import { SPENT_CODE_RETENTION_S, type AuthorizationCodeRecord } from '../../src/stores/authorization-code-store.ts';
import type { Stores } from '../../src/stores/stores.ts';
import type { ContractTarget, StoresUnderTest } from './contracts.ts';

const code = (over: Partial<AuthorizationCodeRecord> = {}): AuthorizationCodeRecord => ({
  codeHash: newId(),
  clientId: 'web-app',
  redirectUri: 'https://app.example/callback',
  codeChallenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
  scope: ['read', 'write'],
  username: 'john.doe',
  loginId: 'login-1',
  nonce: null,
  authTime: null,
  accountId: 2,
  accountVersion: 0,
  expiresAt: 1060,
  usedAt: null,
  ...over,
});

export function authorizationCodes(name: string, target: ContractTarget): void {
  const ctx = {} as { sut: StoresUnderTest | undefined };
  const stores = (): Stores => ctx.sut?.stores ?? (assert.unreachable('no stores opened') as never);
  const t = suite(`AuthorizationCodeStore contract (${name})`);
  t.before.each(async () => {
    ctx.sut = await target.open();
  });
  t.after.each(async () => {
    await ctx.sut?.dispose();
    ctx.sut = undefined;
  });

  t('a code is spent once: the first spend reads it unspent, every later one reads it spent', async () => {
    const record = code();
    await stores().codes.insert(record);
    assert.equal(await stores().codes.spend(record.codeHash, 1010), record);
    assert.equal(await stores().codes.spend(record.codeHash, 1020), { ...record, usedAt: 1010 });
    assert.is(await stores().codes.spend(newId(), 1010), undefined, 'an unknown code');
  });

  t("a code keeps the request's nonce and the sign-in's auth_time, or none", async () => {
    const openid = code({ nonce: 'n-0S6_WzA2Mj', authTime: 995 });
    await stores().codes.insert(openid);
    assert.equal(await stores().codes.spend(openid.codeHash, 1010), openid);
    const plain = code();
    await stores().codes.insert(plain);
    const read = await stores().codes.spend(plain.codeHash, 1010);
    assert.equal([read?.nonce, read?.authTime], [null, null]);
  });

  t('a code issued without a PKCE challenge keeps none, and one with a challenge keeps it', async () => {
    const bare = code({ codeChallenge: null, nonce: 'n-0S6_WzA2Mj', authTime: 995 });
    await stores().codes.insert(bare);
    assert.equal(await stores().codes.spend(bare.codeHash, 1010), bare);
    assert.is((await stores().codes.spend(bare.codeHash, 1020))?.codeChallenge, null, 'spent, still without one');
    const withChallenge = code();
    await stores().codes.insert(withChallenge);
    assert.is((await stores().codes.spend(withChallenge.codeHash, 1010))?.codeChallenge, withChallenge.codeChallenge);
  });

  t('two processes spending one code at once: exactly one of them spends it', async () => {
    const other = await ctx.sut?.another();
    assert.ok(other);
    const record = code({ scope: [] });
    await stores().codes.insert(record);
    const spends = await Promise.all(
      Array.from({ length: 6 }, (_, i) => (i % 2 ? other : stores()).codes.spend(record.codeHash, 1010 + i)),
    );
    assert.is(spends.filter((s) => s?.usedAt === null).length, 1);
    assert.equal(spends.find((s) => s?.usedAt === null)?.scope, []);
  });

  t('purge keeps a spent code for the retention past its expiry, then deletes it', async () => {
    const record = code();
    await stores().codes.insert(record);
    await stores().codes.spend(record.codeHash, 1010);
    assert.is(await stores().codes.purgeExpired(record.expiresAt + SPENT_CODE_RETENTION_S), 0);
    assert.ok(await stores().codes.spend(record.codeHash, 1020), 'still known, so a replay is still seen');
    assert.is(await stores().codes.purgeExpired(record.expiresAt + SPENT_CODE_RETENTION_S + 1), 1);
    assert.is(await stores().codes.spend(record.codeHash, 1030), undefined);
  });

  t.run();
}

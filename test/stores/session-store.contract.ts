/** The SessionStore contract, run per adapter by `storeContracts`. */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { newId } from '../../src/ids.ts';
import type { SessionRecord } from '../../src/stores/session-store.ts';
import type { Stores } from '../../src/stores/stores.ts';
import type { ContractTarget, StoresUnderTest } from './contracts.ts';

const session = (accountId: number, more: Partial<SessionRecord> = {}): SessionRecord => ({
  idHash: newId(),
  accountId,
  accountVersion: 3,
  authTime: 1000,
  createdAt: 1000,
  expiresAt: 2000,
  endedAt: null,
  ...more,
});

export function sessions(name: string, target: ContractTarget): void {
  const ctx = {} as { sut: StoresUnderTest | undefined };
  const stores = (): Stores => ctx.sut?.stores ?? (assert.unreachable('no stores opened') as never);
  const t = suite(`SessionStore contract (${name})`);
  t.before.each(async () => {
    ctx.sut = await target.open();
  });
  t.after.each(async () => {
    await ctx.sut?.dispose();
    ctx.sut = undefined;
  });

  t('a session is found by the hash of its cookie, as written, and seen by another process', async () => {
    const s = session(7);
    await stores().sessions.insert(s);
    assert.equal(await stores().sessions.find(s.idHash), s);
    const other = await ctx.sut?.another();
    assert.equal(await other?.sessions.find(s.idHash), s);
    assert.is(await stores().sessions.find(newId()), undefined);
  });

  t('a session ends once; the record stays, with when it ended', async () => {
    const s = session(7);
    await stores().sessions.insert(s);
    assert.ok(await stores().sessions.end(s.idHash, 1500));
    assert.not.ok(await stores().sessions.end(s.idHash, 1600), 'ended already');
    assert.not.ok(await stores().sessions.end(newId(), 1600), 'no such session');
    assert.is((await stores().sessions.find(s.idHash))?.endedAt, 1500);
  });

  t("ending an account's sessions ends those still going, not another account's", async () => {
    const going = [session(7, { createdAt: 1001 }), session(7, { createdAt: 1002 })];
    const ended = session(7, { endedAt: 1200 });
    const expired = session(7, { expiresAt: 1400 });
    const others = session(8);
    for (const s of [...going, ended, expired, others]) await stores().sessions.insert(s);
    assert.equal(
      (await stores().sessions.listForAccount(7, 1500)).map((s) => s.idHash),
      [going[1]?.idHash, going[0]?.idHash],
      'newest first, neither ended nor expired',
    );
    assert.is(await stores().sessions.endForAccount(7, 1500), 2);
    assert.equal(await stores().sessions.listForAccount(7, 1500), []);
    assert.is((await stores().sessions.find(ended.idHash))?.endedAt, 1200, 'kept its own end');
    assert.is((await stores().sessions.find(others.idHash))?.endedAt, null);
  });

  t('purge forgets sessions expired or ended before now, and keeps the rest', async () => {
    const live = session(7);
    const expired = session(7, { expiresAt: 1400 });
    const ended = session(7, { endedAt: 1300 });
    for (const s of [live, expired, ended]) await stores().sessions.insert(s);
    assert.is(await stores().sessions.purgeExpired(1300), 0, 'nothing before 1300');
    assert.is(await stores().sessions.purgeExpired(1500), 2);
    assert.ok(await stores().sessions.find(live.idHash));
  });

  t.run();
}

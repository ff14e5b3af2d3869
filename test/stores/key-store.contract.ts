/**
 * One behaviour for every adapter of the KeyStore port: `keyStoreContract` registers the suite per
 * database; each test gets a fresh, empty store, and `another()` a second one on the same data, as
 * another process would open it.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { initialize, retire, rotate, viewAt } from '../../src/security/key-set.ts';
import type { KeyRecord, KeyStore } from '../../src/stores/key-store.ts';

export interface KeyStoreUnderTest {
  readonly store: KeyStore;
  another(): Promise<KeyStore>;
  dispose(): Promise<void>;
}

export interface KeyStoreTarget {
  readonly open: () => Promise<KeyStoreUnderTest>;
  /** How long a change by another process may go unseen by `changed()` (MongoDB: the sync interval). */
  readonly changeBoundMs: number;
  readonly teardown?: () => Promise<void>;
}

const VALIDITY = 3600;
const T0 = 1_900_000_000;
const key = (kid: string) => ({
  kid,
  alg: 'ES256' as const,
  secret: `{"k":"${kid}"}`,
  createdAt: T0,
  createdBy: `by ${kid}`,
});

export function keyStoreContract(name: string, target: KeyStoreTarget): void {
  const ctx = {} as { sut: KeyStoreUnderTest };
  const t = suite(`KeyStore contract (${name})`);
  t.before.each(async () => {
    ctx.sut = await target.open();
  });
  t.after.each(() => ctx.sut.dispose());
  if (target.teardown) t.after(target.teardown);

  t('an empty store reads as an empty set; a change is read back whole, by this and another connection', async () => {
    const { store } = ctx.sut;
    assert.equal(await store.read(), []);
    await store.update((now) => initialize(now, key('a'), T0, VALIDITY));
    const rotated = await store.update((now) =>
      rotate(now, key('b'), T0 + 1, { validity: VALIDITY, publishAhead: 60 }),
    );
    assert.is(rotated.activatesAt, T0 + 61);
    const byKid = (rs: readonly KeyRecord[]) => [...rs].sort((x, y) => (x.kid < y.kid ? -1 : 1));
    const expected: KeyRecord[] = [
      { ...key('a'), activatesAt: T0, removedAt: null, removedBy: null },
      { ...key('b'), activatesAt: T0 + 61, removedAt: null, removedBy: null },
    ];
    assert.equal(byKid(await store.read()), expected);
    assert.equal(byKid(await (await ctx.sut.another()).read()), expected);
  });

  t('a change that throws writes nothing', async () => {
    const { store } = ctx.sut;
    await store.update((now) => initialize(now, key('a'), T0, VALIDITY));
    try {
      await store.update((now) => retire(now, 'a', T0 + 1, { validity: VALIDITY, by: 'test' }));
      assert.unreachable('retiring the only signing key was accepted');
    } catch (error) {
      assert.match((error as Error).message, /only signing key/);
    }
    assert.is((await store.read())[0]?.removedAt, null);
  });

  t('two processes giving an empty set its first key at once: one key', async () => {
    const other = await ctx.sut.another();
    const made = await Promise.all([
      ctx.sut.store.update((now) => initialize(now, key('a'), T0, VALIDITY)),
      other.update((now) => initialize(now, key('b'), T0, VALIDITY)),
    ]);
    assert.equal(made.filter(Boolean).length, 1);
    const records = await other.read();
    assert.is(records.length, 1);
    assert.is(viewAt(records, T0, VALIDITY).active?.record.kid, records[0]?.kid);
  });

  t('two rotations at once from two processes: one wins, the other is refused', async () => {
    const other = await ctx.sut.another();
    await ctx.sut.store.update((now) => initialize(now, key('a'), T0, VALIDITY));
    const settings = { validity: VALIDITY, publishAhead: 60 };
    const outcomes = await Promise.allSettled([
      ctx.sut.store.update((now) => rotate(now, key('b'), T0 + 1, settings)),
      other.update((now) => rotate(now, key('c'), T0 + 1, settings)),
    ]);
    assert.is(outcomes.filter((o) => o.status === 'fulfilled').length, 1);
    assert.is((await ctx.sut.store.read()).length, 2);
  });

  t('changed() tells a change by another process, within the bound', async () => {
    const { store } = ctx.sut;
    const other = await ctx.sut.another();
    store.changed();
    await store.read();
    await other.update((now) => initialize(now, key('a'), T0, VALIDITY));
    await new Promise((resolve) => setTimeout(resolve, target.changeBoundMs));
    assert.ok(store.changed(), 'a change by another process went unnoticed');
  });

  t.run();
}

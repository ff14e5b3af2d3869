/**
 * One behaviour for every adapter of the KeyStore port: `keyStoreContract` registers the suite per
 * database; each test gets a fresh, empty store of the access lineage, `lineage(use)` the store of
 * a lineage on the same connection (as the process's other ring has it), and `another(use)` a store
 * on the same data as another process would open it.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { initialize, retire, rotate, viewAt } from '../../src/security/key-set.ts';
import type { KeyRecord, KeyStore, KeyUse } from '../../src/stores/key-store.ts';

export interface KeyStoreUnderTest {
  /** The access lineage. */
  readonly store: KeyStore;
  /** The store of a lineage on this connection. */
  lineage(use: KeyUse): KeyStore;
  /** A store of a lineage (access unless named) on a connection of its own. */
  another(use?: KeyUse): Promise<KeyStore>;
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
const key = (kid: string, use: KeyUse = 'access') => ({
  kid,
  alg: 'ES256' as const,
  use,
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

  t('two lineages in one set: each reads and changes its own records alone', async () => {
    const access = ctx.sut.store;
    const idTokens = ctx.sut.lineage('id_token');
    await access.update((now) => initialize(now, key('a'), T0, VALIDITY));
    await idTokens.update((now) => initialize(now, key('i', 'id_token'), T0, VALIDITY));
    const settings = { validity: VALIDITY, publishAhead: 60 };
    await idTokens.update((now) => rotate(now, key('j', 'id_token'), T0 + 1, settings));
    const kids = (rs: readonly KeyRecord[]) => rs.map((r) => `${r.use} ${r.kid}`).sort();
    assert.equal(kids(await access.read()), ['access a']);
    assert.equal(kids(await idTokens.read()), ['id_token i', 'id_token j']);
    assert.equal(kids(await (await ctx.sut.another('id_token')).read()), ['id_token i', 'id_token j']);
    // A retirement in one lineage leaves the other's records as they were.
    await access.update((now) => rotate(now, key('b'), T0 + 2, settings));
    await access.update((now) => retire(now, 'a', T0 + 3, { validity: VALIDITY, by: 'test' }));
    assert.equal(kids(await idTokens.read()), ['id_token i', 'id_token j']);
    assert.equal(viewAt(await access.read(), T0 + 3, VALIDITY).active?.record.kid, 'b');
    assert.equal(viewAt(await idTokens.read(), T0 + 3, VALIDITY).active?.record.kid, 'i');
  });

  t(
    "a change by another process is told to each lineage's store of a process, whichever lineage it changed",
    async () => {
      const access = ctx.sut.store;
      const idTokens = ctx.sut.lineage('id_token');
      const other = await ctx.sut.another('id_token');
      for (const s of [access, idTokens]) {
        s.changed();
        await s.read();
      }
      await other.update((now) => initialize(now, key('i', 'id_token'), T0, VALIDITY));
      await new Promise((resolve) => setTimeout(resolve, target.changeBoundMs));
      assert.ok(idTokens.changed(), 'the id_token store missed the change');
      assert.ok(access.changed(), "the access store's look was taken by the other store");
    },
  );

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

/** One behaviour for every EmployeeStore adapter: register this suite once per adapter. */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { isObjectId, newId, type ObjectIdString } from '../../src/ids.ts';
import type { EmployeeRecord, EmployeeSearch, EmployeeStore, SearchKey } from '../../src/stores/employee-store.ts';

export interface StoreUnderTest {
  readonly store: EmployeeStore;
  /** Removes what `open` created (and closes what it opened). */
  dispose(): Promise<void>;
}

export interface ContractTarget {
  /** Once before the suite, e.g. start a server. */
  readonly setup?: () => Promise<void>;
  /** A fresh, empty store for one test. */
  readonly open: () => Promise<StoreUnderTest>;
  /** Once after the suite; runs even when `setup` failed. */
  readonly teardown?: () => Promise<void>;
}

const AT = '2024-05-01T10:00:00.000Z';
const LATER = '2024-05-02T11:30:00.000Z';

const ctx = {} as { sut: StoreUnderTest | undefined };
const store = (): EmployeeStore => {
  if (!ctx.sut) throw new Error('no store opened');
  return ctx.sut.store;
};

const add = (name: string, dateOfBirth = '1990-04-12', at = AT): Promise<EmployeeRecord> =>
  store().insert({ name, dateOfBirth }, at);
const names = async (criteria: Partial<EmployeeSearch>): Promise<string[]> =>
  (await store().search({ limit: 500, ...criteria })).items.map((r) => r.name);
const byKey = (a: EmployeeRecord, b: EmployeeRecord): number => {
  const [x, y] = [a.name.toLowerCase(), b.name.toLowerCase()];
  return x < y ? -1 : x > y ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
};

/** Follows `next` from the first page to the last, calling `between` after each page. */
async function walk(
  criteria: Partial<EmployeeSearch>,
  limit: number,
  between: (page: number) => Promise<void> = async () => {},
): Promise<ObjectIdString[]> {
  const seen: ObjectIdString[] = [];
  let after: SearchKey | undefined;
  for (let page = 0; page < 10_000; page++) {
    const result = await store().search({ ...criteria, limit, after });
    assert.ok(result.items.length <= limit);
    seen.push(...result.items.map((r) => r.id));
    if (result.next === null) return seen;
    await between(page);
    after = result.next;
  }
  throw new Error('the cursor never ended');
}

export function employeeStoreContract(name: string, target: ContractTarget): void {
  const t = suite(`EmployeeStore contract (${name})`);
  t.before(async () => target.setup?.());
  t.after(async () => target.teardown?.());
  t.before.each(async () => {
    ctx.sut = await target.open();
  });
  t.after.each(async () => {
    await ctx.sut?.dispose();
    ctx.sut = undefined;
  });

  t('insert: an ObjectId-form id, version 1, both timestamps at the given instant; findById returns it', async () => {
    const r = await add('Jane Roe');
    assert.ok(isObjectId(r.id));
    assert.equal(
      { ...r, id: '' },
      { id: '', name: 'Jane Roe', dateOfBirth: '1990-04-12', createdAt: AT, updatedAt: AT, version: 1 },
    );
    assert.equal(Object.keys(r), ['id', 'name', 'dateOfBirth', 'createdAt', 'updatedAt', 'version']);
    assert.equal(await store().findById(r.id), r);
    assert.is.not((await add('Jane Roe')).id, r.id);
  });

  t('findById: an unknown id → undefined', async () => {
    await add('Someone');
    assert.is(await store().findById(newId()), undefined);
  });

  t('update: changes only the given fields, bumps the version, stamps updatedAt', async () => {
    const r = await add('Jane Roe');
    const renamed = await store().update(r.id, { name: 'Jane Doe' }, undefined, LATER);
    assert.equal(renamed, { status: 'updated', record: { ...r, name: 'Jane Doe', updatedAt: LATER, version: 2 } });
    const moved = await store().update(r.id, { dateOfBirth: '1991-01-02' }, 2, LATER);
    assert.equal(moved, {
      status: 'updated',
      record: { ...r, name: 'Jane Doe', dateOfBirth: '1991-01-02', updatedAt: LATER, version: 3 },
    });
    assert.equal(await store().findById(r.id), {
      ...r,
      name: 'Jane Doe',
      dateOfBirth: '1991-01-02',
      updatedAt: LATER,
      version: 3,
    });
    assert.equal(await names({ name: 'doe' }), ['Jane Doe'], 'the search follows a renamed record');
    assert.equal(await names({ name: 'roe' }), []);
  });

  t('update: a stale expected version → version_conflict with the current version, nothing written', async () => {
    const r = await add('Jane Roe');
    await store().update(r.id, { name: 'Jane Doe' }, 1, LATER);
    assert.equal(await store().update(r.id, { name: 'Lost Update' }, 1, LATER), {
      status: 'version_conflict',
      version: 2,
    });
    assert.is((await store().findById(r.id))?.name, 'Jane Doe');
  });

  t('update: an unknown id → not_found, with or without an expected version', async () => {
    assert.equal(await store().update(newId(), { name: 'X' }, undefined, LATER), { status: 'not_found' });
    assert.equal(await store().update(newId(), { name: 'X' }, 1, LATER), { status: 'not_found' });
  });

  t('delete: true once, then false; the record is gone', async () => {
    const r = await add('Jane Roe');
    assert.is(await store().delete(r.id), true);
    assert.is(await store().findById(r.id), undefined);
    assert.is(await store().delete(r.id), false);
  });

  t('search: name is a case-insensitive substring', async () => {
    for (const n of ['Jane Roe', 'JANET Smith', 'Bob Janssen', 'Alice']) await add(n);
    assert.equal(await names({ name: 'jan' }), ['Bob Janssen', 'Jane Roe', 'JANET Smith']);
    assert.equal(await names({ name: 'ROE' }), ['Jane Roe']);
    assert.equal(await names({ name: 'nobody' }), []);
  });

  t('search: regex and LIKE metacharacters in the name match literally', async () => {
    for (const n of [
      '50% off',
      '5000 off',
      'a_b',
      'axb',
      'x.*y',
      'xzzy',
      'back\\slash',
      '(paren)',
      'a+b',
      'aab',
      '[set]',
      's',
    ])
      await add(n);
    assert.equal(await names({ name: '%' }), ['50% off']);
    assert.equal(await names({ name: '_' }), ['a_b']);
    assert.equal(await names({ name: '.*' }), ['x.*y']);
    assert.equal(await names({ name: '\\' }), ['back\\slash']);
    assert.equal(await names({ name: '(' }), ['(paren)']);
    assert.equal(await names({ name: 'a+' }), ['a+b']);
    assert.equal(await names({ name: '[s' }), ['[set]']);
  });

  t('search: id matches exactly', async () => {
    const r = await add('Jane Roe');
    await add('Jane Roe');
    assert.equal((await store().search({ id: r.id, limit: 10 })).items, [r]);
    assert.equal((await store().search({ id: newId(), limit: 10 })).items, []);
  });

  t('search: the date range is inclusive at both ends; either end may be open', async () => {
    for (const [n, d] of [
      ['a', '1979-12-31'],
      ['b', '1980-01-01'],
      ['c', '1980-06-15'],
      ['d', '1980-12-31'],
      ['e', '1981-01-01'],
    ] as const)
      await add(n, d);
    assert.equal(await names({ bornFrom: '1980-01-01', bornTo: '1980-12-31' }), ['b', 'c', 'd']);
    assert.equal(await names({ bornFrom: '1980-06-15' }), ['c', 'd', 'e']);
    assert.equal(await names({ bornTo: '1980-01-01' }), ['a', 'b']);
    assert.equal(await names({ bornFrom: '1980-06-15', bornTo: '1980-06-15' }), ['c']);
    assert.equal(await names({ name: 'c', bornFrom: '1981-01-01' }), []);
  });

  t('search: ordered by name case-insensitively, then by id', async () => {
    const rs = [];
    for (const n of ['bob', 'Alice', 'alice', 'Carol', 'ALICE', 'Émile', 'zoe']) rs.push(await add(n));
    const page = await store().search({ limit: 50 });
    assert.equal(
      page.items.map((r) => r.id),
      [...rs].sort(byKey).map((r) => r.id),
    );
    assert.is(page.next, null);
  });

  t('search: limit pages; next is null exactly when no match follows', async () => {
    for (const n of ['a', 'b', 'c', 'd']) await add(n);
    const first = await store().search({ limit: 2 });
    assert.equal(
      first.items.map((r) => r.name),
      ['a', 'b'],
    );
    assert.ok(first.next);
    const second = await store().search({ limit: 2, after: first.next });
    assert.equal(
      second.items.map((r) => r.name),
      ['c', 'd'],
    );
    assert.is(second.next, null);
    assert.is((await store().search({ limit: 4 })).next, null);
  });

  t(
    'search: following next over 300 records visits every match exactly once, also while records are inserted',
    async () => {
      const original: EmployeeRecord[] = [];
      for (let i = 0; i < 300; i++)
        original.push(await add(`Emp ${String((i * 37) % 100).padStart(2, '0')}`, `19${50 + (i % 40)}-01-01`));
      assert.equal(
        await walk({}, 7),
        [...original].sort(byKey).map((r) => r.id),
      );
      const inserted: ObjectIdString[] = [];
      const seen = await walk({}, 11, async (page) => {
        for (const n of [`Emp ${String(page * 3).padStart(2, '0')}`, 'Aaron first', 'zz last'])
          inserted.push((await add(n)).id);
      });
      assert.is(new Set(seen).size, seen.length, 'no record is visited twice');
      for (const r of original) assert.ok(seen.includes(r.id), `record ${r.id} was skipped`);
      assert.ok(seen.every((id) => inserted.includes(id) || original.some((r) => r.id === id)));
      assert.ok(
        inserted.some((id) => seen.includes(id)) && inserted.some((id) => !seen.includes(id)),
        'records inserted after the cursor are found, before it not',
      );
      const criteria = { name: 'emp 1', bornFrom: '1960-01-01' };
      const all = (await store().search({ ...criteria, limit: 500 })).items.map((r) => r.id);
      assert.ok(all.length > 20);
      assert.equal(await walk(criteria, 5), all);
    },
  );

  t.run();
}

import { ObjectId } from 'mongodb';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { ObjectIdString } from '../../src/ids.ts';
import {
  MONGO_SORT,
  mongoAfter,
  mongoFilter,
  mongoUpdate,
  mongoUpdateFilter,
  recordOfDoc,
} from '../../src/stores/employee-store.mongo-queries.ts';
import { escapeRegex } from '../../src/stores/mongo.ts';
import { likeContains, sqliteSearch } from '../../src/stores/employee-store.sqlite-queries.ts';
import { keyOf, nameKeyOf } from '../../src/stores/employee-store.ts';
import { openDatabase } from '../../src/stores/sqlite.ts';

const ID = '65f1a2b3c4d5e6f708192a3b' as ObjectIdString;
const t = suite('employee query construction (pure)');

/** Plain JSON, so ObjectIds compare by their hex form. */
const plain = (value: unknown): unknown => JSON.parse(JSON.stringify(value));

t('escapeRegex: every metacharacter matches itself; a plain string is unchanged', () => {
  const nasty = 'a.b*c+d?e^f$g{h}i(j)k|l[m]n\\o';
  assert.ok(new RegExp(`^${escapeRegex(nasty)}$`).test(nasty));
  assert.not.ok(new RegExp(escapeRegex('a.c')).test('abc'));
  assert.is(escapeRegex('jane roe'), 'jane roe');
});

t("likeContains: % _ and \\ are escaped for `escape '\\'`", () => {
  assert.is(likeContains('50%'), '%50\\%%');
  assert.is(likeContains('a_b'), '%a\\_b%');
  assert.is(likeContains('x\\y'), '%x\\\\y%');
  assert.is(likeContains('jane'), '%jane%');
});

t('nameKeyOf lowercases; keyOf pairs it with the id', () => {
  assert.is(nameKeyOf('Émile ZOLA'), 'émile zola');
  assert.equal(keyOf({ id: ID, name: 'Jane ROE' }), { nameKey: 'jane roe', id: ID });
});

t('mongoFilter: no criteria → {}', () => {
  assert.equal(mongoFilter({ limit: 10 }), {});
});

t('mongoFilter: name → escaped regex on the lowercased key; id → ObjectId; dates → inclusive range', () => {
  const f = mongoFilter({ name: 'J.R.', id: ID, bornFrom: '1980-01-01', bornTo: '1989-12-31', limit: 10 });
  assert.equal(plain(f), {
    nameKey: { $regex: 'j\\.r\\.' },
    _id: ID,
    dateOfBirth: { $gte: '1980-01-01', $lte: '1989-12-31' },
  });
  assert.instance(f._id, ObjectId);
  assert.equal(mongoFilter({ bornTo: '1989-12-31', limit: 1 }), { dateOfBirth: { $lte: '1989-12-31' } });
  assert.equal(mongoFilter({ bornFrom: '1980-01-01', limit: 1 }), { dateOfBirth: { $gte: '1980-01-01' } });
});

t('mongoFilter: a cursor adds the keyset condition (after the name key, or the same key and a later id)', () => {
  const key = { nameKey: 'jane', id: ID };
  assert.equal(plain(mongoAfter(key)), { $or: [{ nameKey: { $gt: 'jane' } }, { nameKey: 'jane', _id: { $gt: ID } }] });
  assert.equal(plain(mongoFilter({ name: 'ja', after: key, limit: 5 })), {
    nameKey: { $regex: 'ja' },
    ...(plain(mongoAfter(key)) as object),
  });
  assert.equal(MONGO_SORT, { nameKey: 1, _id: 1 });
});

t('mongoUpdate: sets the given fields (the name with its key), stamps updatedAt, increments version', () => {
  const at = '2024-05-01T10:00:00.000Z';
  assert.equal(plain(mongoUpdate({ name: 'Jane DOE' }, at)), {
    $set: { name: 'Jane DOE', nameKey: 'jane doe', updatedAt: at },
    $inc: { version: 1 },
  });
  assert.equal(plain(mongoUpdate({ dateOfBirth: '1990-01-01' }, at)), {
    $set: { dateOfBirth: '1990-01-01', updatedAt: at },
    $inc: { version: 1 },
  });
  assert.equal(plain(mongoUpdateFilter(ID, undefined)), { _id: ID });
  assert.equal(plain(mongoUpdateFilter(ID, 3)), { _id: ID, version: 3 });
});

t('recordOfDoc: the wire record, in field order, with ISO timestamps', () => {
  const doc = {
    _id: new ObjectId(ID),
    name: 'Jane',
    nameKey: 'jane',
    dateOfBirth: '1990-04-12',
    createdAt: new Date('2024-05-01T10:00:00Z'),
    updatedAt: new Date('2024-05-02T10:00:00Z'),
    version: 2,
  };
  const r = recordOfDoc(doc);
  assert.equal(Object.keys(r), ['id', 'name', 'dateOfBirth', 'createdAt', 'updatedAt', 'version']);
  assert.equal(r, {
    id: ID,
    name: 'Jane',
    dateOfBirth: '1990-04-12',
    createdAt: '2024-05-01T10:00:00.000Z',
    updatedAt: '2024-05-02T10:00:00.000Z',
    version: 2,
  });
});

t('sqliteSearch: parameters in order, limit + 1 last, keyset as a row-value comparison', () => {
  const q = sqliteSearch({
    name: '50%',
    id: ID,
    bornFrom: '1980-01-01',
    bornTo: '1990-01-01',
    limit: 10,
    after: { nameKey: 'm', id: ID },
  });
  assert.match(
    q.sql,
    /where name_key like \? escape '\\' and id = \? and date_of_birth >= \? and date_of_birth <= \? and \(name_key, id\) > \(\?, \?\) order by name_key, id limit \?\)/,
  );
  assert.equal(q.params, ['%50\\%%', ID, '1980-01-01', '1990-01-01', 'm', ID, 11]);
  assert.equal(sqliteSearch({ limit: 50 }).params, [51]);
  assert.not.match(sqliteSearch({ limit: 50 }).sql, /where/);
});

t(
  'sqliteSearch: every search filters and pages on the covering name index, then reads only the page by primary key',
  () => {
    const db = openDatabase(':memory:', { synchronous: 'NORMAL' });
    const plan = (criteria: Parameters<typeof sqliteSearch>[0]): string => {
      const q = sqliteSearch(criteria);
      return db
        .prepare(`explain query plan ${q.sql}`)
        .all(...q.params)
        .map((r) => (r as { detail: string }).detail)
        .join('; ');
    };
    assert.match(
      plan({ limit: 50, after: { nameKey: 'm', id: ID } }),
      /USING COVERING INDEX employees_name \(\(name_key,id\)>\(\?,\?\)\)/,
    );
    assert.match(
      plan({ name: 'jan', bornFrom: '1900-01-01', limit: 50 }),
      /SCAN employees USING COVERING INDEX employees_name/,
    );
    assert.match(plan({ name: 'jan', limit: 50 }), /SEARCH e USING PRIMARY KEY \(id=\?\)/);
    assert.match(
      plan({ bornFrom: '1980-01-01', bornTo: '1980-02-01', limit: 50 }),
      /SCAN employees USING COVERING INDEX employees_name/,
    );
    assert.not.match(plan({ id: ID, limit: 50 }), /SCAN employees/);
    db.close();
  },
);

t.run();

import { randomBytes } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { caller, expectInsufficientScope, expectProblem, type EmployeeJson } from '../helpers/employee-api.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { login, USERS } from '../helpers/tokens.ts';

interface Page {
  items: EmployeeJson[];
  nextCursor: string | null;
}

const ctx = {} as { server: TestServer; rw: string };
const t = suite('employee service: POST /api/employee/search', ctx);
const call = caller(() => ctx.server.url);

t.before(async () => {
  ctx.server = await startTestServer();
  ctx.rw = (await login(ctx.server.url, USERS.john)).access_token;
});
t.after(async () => ctx.server?.close());

/** A marker unique to one test, so tests sharing the server see only their own records. */
const tag = (): string => `t${randomBytes(4).toString('hex')}`;

async function create(name: string, dateOfBirth = '1990-04-12'): Promise<EmployeeJson> {
  const res = await call('POST', '/api/employee/create', { token: ctx.rw, body: { name, dateOfBirth } });
  assert.is(res.status, 201);
  return (await res.json()) as EmployeeJson;
}

async function search(body: unknown, token = ctx.rw): Promise<Page> {
  const res = await call('POST', '/api/employee/search', { token, body });
  assert.is(res.status, 200, await res.clone().text());
  return (await res.json()) as Page;
}

const names = async (body: Record<string, unknown>): Promise<string[]> =>
  (await search({ limit: 500, ...body })).items.map((r) => r.name);

async function walk(body: Record<string, unknown>, between: () => Promise<void> = async () => {}): Promise<string[]> {
  const seen: string[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 1000; page++) {
    const result = await search({ ...body, ...(cursor ? { cursor } : {}) });
    seen.push(...result.items.map((r) => r.id));
    if (result.nextCursor === null) return seen;
    cursor = result.nextCursor;
    await between();
  }
  throw new Error('the cursor never ended');
}

t('name › case-insensitive substring, ordered by name case-insensitively then id; {items, nextCursor}', async () => {
  const x = tag();
  const made = [];
  for (const n of [`B ${x} bob`, `a ${x} ALICE`, `A ${x} alice`, `c ${x} carol`, `other ${tag()}`])
    made.push(await create(n));
  const page = await search({ name: x.toUpperCase() });
  assert.equal(Object.keys(page), ['items', 'nextCursor']);
  assert.is(page.nextCursor, null);
  const key = (r: EmployeeJson): string => `${r.name.toLowerCase()}\u0000${r.id}`;
  const expected = made.slice(0, 4).sort((p, q) => (key(p) < key(q) ? -1 : 1));
  assert.equal(page.items, expected);
});

t('name › regex and LIKE metacharacters match literally', async () => {
  const x = tag();
  for (const n of [`${x} 50% off`, `${x} 5000 off`, `${x} a_b`, `${x} axb`, `${x} .*`]) await create(n);
  assert.equal(await names({ name: `${x} 50%` }), [`${x} 50% off`]);
  assert.equal(await names({ name: `${x} a_` }), [`${x} a_b`]);
  assert.equal(await names({ name: `${x} .*` }), [`${x} .*`]);
});

t('id › exact match; unknown → empty; malformed → 400', async () => {
  const x = tag();
  const r = await create(`${x} one`);
  await create(`${x} two`);
  assert.equal((await search({ id: r.id })).items, [r]);
  assert.equal((await search({ id: '0123456789abcdef01234567' })).items, []);
  await expectProblem(await call('POST', '/api/employee/search', { token: ctx.rw, body: { id: 'abc' } }), 400, ['id']);
});

t('bornFrom / bornTo › inclusive range; combined with name', async () => {
  const x = tag();
  for (const [n, d] of [
    ['a', '1979-12-31'],
    ['b', '1980-01-01'],
    ['c', '1980-06-15'],
    ['d', '1980-12-31'],
    ['e', '1981-01-01'],
  ])
    await create(`${x} ${n}`, d);
  assert.equal(await names({ name: x, bornFrom: '1980-01-01', bornTo: '1980-12-31' }), [`${x} b`, `${x} c`, `${x} d`]);
  assert.equal(await names({ name: x, bornTo: '1980-01-01' }), [`${x} a`, `${x} b`]);
  assert.equal(await names({ name: x, bornFrom: '1981-01-01' }), [`${x} e`]);
});

t('bornFrom / bornTo › every four-digit year is a date: 0000–0099 are not read as 1900–1999', async () => {
  const x = tag();
  await create(`${x} a`, '1950-01-01');
  assert.equal(await names({ name: x, bornFrom: '0050-01-01' }), [`${x} a`]);
  assert.equal(await names({ name: x, bornTo: '0050-01-01' }), []);
  assert.equal(await names({ name: x, bornFrom: '0000-01-01', bornTo: '9999-12-31' }), [`${x} a`]);
  await expectProblem(
    await call('POST', '/api/employee/search', { token: ctx.rw, body: { bornFrom: '0050-02-30' } }),
    400,
    ['bornFrom'],
  );
  const early = await call('POST', '/api/employee/create', {
    token: ctx.rw,
    body: { name: `${x} early`, dateOfBirth: '0050-01-01' },
  });
  assert.is(early.status, 400);
  assert.match(await early.text(), /must not be before 1900-01-01/);
});

t('name › stored and searched in Unicode normal form C, whichever form the client sends', async () => {
  const x = tag();
  const decomposed = `${x} Jose\u0301 Nun\u0303ez`; // e + combining acute, n + combining tilde
  const composed = `${x} Jos\u00e9 Nu\u00f1ez`;
  const created = await create(decomposed);
  assert.is(created.name, composed);
  assert.equal(await names({ name: `${x} jos\u00e9` }), [composed], 'composed query');
  assert.equal(await names({ name: `${x} jose\u0301` }), [composed], 'decomposed query');
});

t('limit › default 50; 1 and 500 accepted', async () => {
  const x = tag();
  for (let i = 0; i < 52; i++) await create(`${x} ${String(i).padStart(2, '0')}`);
  const page = await search({ name: x });
  assert.is(page.items.length, 50);
  assert.type(page.nextCursor, 'string');
  assert.is((await search({ name: x, limit: 1 })).items.length, 1);
  assert.is((await search({ name: x, limit: 500 })).items.length, 52);
});

t(
  'following nextCursor over 200 records visits each match exactly once, also while records are inserted between pages',
  async () => {
    const x = tag();
    const original: string[] = [];
    for (let i = 0; i < 200; i++) original.push((await create(`${x} ${String((i * 71) % 200).padStart(3, '0')}`)).id);
    const quiet = await walk({ name: x, limit: 9 });
    assert.is(quiet.length, 200);
    assert.equal([...quiet].sort(), [...original].sort());
    let n = 0;
    const busy = await walk({ name: x, limit: 9 }, async () => {
      for (const suffix of ['000 first', `${String(n++ % 200).padStart(3, '0')}`, '999 last'])
        await create(`${x} ${suffix}`);
    });
    assert.is(new Set(busy).size, busy.length, 'no record twice');
    for (const id of original) assert.ok(busy.includes(id), `record ${id} skipped`);
  },
);

const invalid: [string, unknown, string[]][] = [
  ['limit 0', { limit: 0 }, ['limit']],
  ['limit 501', { limit: 501 }, ['limit']],
  ['limit 2.5', { limit: 2.5 }, ['limit']],
  ['limit as a string', { limit: '10' }, ['limit']],
  ['name not a string', { name: 5 }, ['name']],
  ['name empty', { name: ' ' }, ['name']],
  ['bornFrom not a calendar date', { bornFrom: '2023-02-30' }, ['bornFrom']],
  ['bornTo not YYYY-MM-DD', { bornTo: '1980' }, ['bornTo']],
  ['bornFrom after bornTo', { bornFrom: '1990-01-02', bornTo: '1990-01-01' }, ['bornTo']],
  ['malformed cursor', { cursor: 'not-a-cursor!' }, ['cursor']],
  ['cursor of base64 that is not ours', { cursor: Buffer.from('{"x":1}').toString('base64url') }, ['cursor']],
  ['cursor not a string', { cursor: 12 }, ['cursor']],
  ['unknown field', { sort: 'name' }, ['sort']],
];
for (const [what, body, fields] of invalid) {
  t(`POST /api/employee/search › ${what} → 400`, async () => {
    await expectProblem(await call('POST', '/api/employee/search', { token: ctx.rw, body }), 400, fields);
  });
}

t('POST /api/employee/search › empty body → 400; other media type → 415', async () => {
  await expectProblem(await call('POST', '/api/employee/search', { token: ctx.rw }), 400, ['(body)']);
  await expectProblem(
    await call('POST', '/api/employee/search', { token: ctx.rw, body: 'x', headers: { 'Content-Type': 'text/plain' } }),
    415,
  );
});

t('POST /api/employee/search › a write-only token → 403 insufficient_scope; no token → 401', async () => {
  const writeOnly = (await login(ctx.server.url, USERS.john, 'write')).access_token;
  await expectInsufficientScope(await call('POST', '/api/employee/search', { token: writeOnly, body: {} }), 'read');
  assert.is((await call('POST', '/api/employee/search', { body: {} })).status, 401);
  const readOnly = (await login(ctx.server.url, USERS.admin, 'read')).access_token;
  assert.ok(Array.isArray((await search({ limit: 1 }, readOnly)).items));
});

t.run();

/**
 * Safe methods have no side effect: HEAD of a GET route that changes state (the employee service's
 * `GET /api/employee/create`) is 405 and reaches no handler; HEAD of a reading route still answers.
 */
import Database from 'better-sqlite3';
import { join } from 'node:path';
import * as assert from 'uvu/assert';
import { serverSuite } from '../helpers/server.ts';
import { bearer, login } from '../helpers/tokens.ts';

const t = serverSuite('HTTP: safe methods never reach a handler that writes');

const employees = (dataDir: string): number => {
  const db = new Database(join(dataDir, 'troupe.db'), { readonly: true });
  try {
    return db.prepare<[], number>('select count(*) from employees').pluck().get() ?? -1;
  } finally {
    db.close();
  }
};

t('HEAD /api/employee/create?… with a write token → 405, Allow without HEAD, nothing created', async (c) => {
  const { access_token: token } = await login(c.server.url);
  const before = employees(c.server.dataDir);
  const res = await fetch(`${c.server.url}/api/employee/create?name=Head%20Case&dateOfBirth=1990-01-01`, {
    method: 'HEAD',
    headers: bearer(token),
  });
  assert.is(res.status, 405);
  assert.equal(res.headers.get('allow')?.split(/,\s*/).sort(), ['GET', 'POST']);
  assert.is(employees(c.server.dataDir), before, 'HEAD created an employee');
  // GET still creates: the route itself is unchanged.
  const get = await fetch(`${c.server.url}/api/employee/create?name=Get%20Case&dateOfBirth=1990-01-01`, {
    headers: bearer(token),
  });
  assert.is(get.status, 201);
  assert.is(employees(c.server.dataDir), before + 1);
});

t('HEAD /api/employee/create without a token → 401, as any request under a secured prefix', async (c) => {
  const before = employees(c.server.dataDir);
  const res = await fetch(`${c.server.url}/api/employee/create?name=Anon&dateOfBirth=1990-01-01`, { method: 'HEAD' });
  assert.is(res.status, 401);
  assert.is(employees(c.server.dataDir), before);
});

t('HEAD of a reading route answers like its GET, without a body', async (c) => {
  const { access_token: token } = await login(c.server.url);
  const created = await fetch(`${c.server.url}/api/employee/create?name=Read%20Me&dateOfBirth=1990-01-01`, {
    headers: bearer(token),
  });
  const { id } = (await created.json()) as { id: string };
  const head = await fetch(`${c.server.url}/api/employee/${id}`, { method: 'HEAD', headers: bearer(token) });
  assert.is(head.status, 200);
  assert.is(head.headers.get('etag'), '"1"');
  assert.is(await head.text(), '');
  assert.is((await fetch(`${c.server.url}/health`, { method: 'HEAD' })).status, 200);
});

t.run();

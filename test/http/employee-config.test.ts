import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { caller, expectProblem } from '../helpers/employee-api.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { login, USERS } from '../helpers/tokens.ts';
import { closedPort } from '../helpers/ports.ts';


const ctx = {} as { server: TestServer | undefined };
const t = suite('employee service: configuration', ctx);
const call = caller(() => ctx.server?.url ?? '');
t.after.each(async () => {
  await ctx.server?.close();
  ctx.server = undefined;
});

t('services without employee › /api/employee/** is 404', async () => {
  ctx.server = await startTestServer({ services: 'secured' });
  const token = (await login(ctx.server.url, USERS.john)).access_token;
  await expectProblem(await call('POST', '/api/employee/create', { token, body: { name: 'Jane', dateOfBirth: '1990-04-12' } }), 404);
  assert.is((await call('GET', '/ready')).status, 200);
});

t('security.enabled=false › the employee service answers without a token', async () => {
  ctx.server = await startTestServer({ 'security.enabled': 'false' });
  const res = await call('POST', '/api/employee/create', { body: { name: 'Jane', dateOfBirth: '1990-04-12' } });
  assert.is(res.status, 201);
  assert.is((await call('POST', '/api/employee/search', { body: { name: 'jane' } })).status, 200);
});

t('security.protect-api=false › /api/employee/** needs no token', async () => {
  ctx.server = await startTestServer({ 'security.protect-api': 'false' });
  assert.is((await call('GET', '/api/employee/create?name=Jane&dateOfBirth=1990-04-12')).status, 201);
});

t('mongodb.uri set but unreachable › 503 problem with Retry-After (never a hang); /ready 503; invalid input still 400', async () => {
  const uri = `mongodb://127.0.0.1:${await closedPort()}/troupe?serverSelectionTimeoutMS=300`;
  ctx.server = await startTestServer({ 'mongodb.uri': uri });
  const token = (await login(ctx.server.url, USERS.john)).access_token;
  const created = await call('POST', '/api/employee/create', { token, body: { name: 'Jane', dateOfBirth: '1990-04-12' } });
  assert.is((await expectProblem(created, 503)).type, 'urn:problem:troupe:employee.unavailable');
  assert.is(created.headers.get('retry-after'), '1');
  await expectProblem(await call('POST', '/api/employee/search', { token, body: {} }), 503);
  await expectProblem(await call('GET', '/api/employee/0123456789abcdef01234567', { token }), 503);
  await expectProblem(await call('DELETE', '/api/employee/delete?id=0123456789abcdef01234567', { token }), 503);
  await expectProblem(await call('POST', '/api/employee/create', { token, body: { name: '' } }), 400, ['name', 'dateOfBirth']);
  const ready = await call('GET', '/ready');
  assert.is(ready.status, 503);
  const detail = ((await ready.json()) as { detail: string }).detail;
  assert.match(detail, /^store "employees" \(MongoDB\) does not answer: .*MongoDB cannot be reached/, "names the failing store");
});

t.run();

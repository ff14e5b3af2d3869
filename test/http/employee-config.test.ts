import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { caller, expectProblem } from '../helpers/employee-api.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { login, USERS } from '../helpers/tokens.ts';

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
  await expectProblem(
    await call('POST', '/api/employee/create', { token, body: { name: 'Jane', dateOfBirth: '1990-04-12' } }),
    404,
  );
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

t.run();

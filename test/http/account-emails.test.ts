/**
 * Accounts' emails over HTTP: optional on POST and PATCH /app/admin/users, shown by every account
 * answer (null when none), unique among accounts compared case-insensitively, cleared with null.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { bearer, login, USERS } from '../helpers/tokens.ts';

interface Ctx {
  server: TestServer;
  admin: string;
}
const ctx = {} as Ctx;
const t = suite('account emails over HTTP', ctx);

t.before(async () => {
  ctx.server = await startTestServer({ 'security.password.bcrypt-cost': '4' });
  ctx.admin = (await login(ctx.server.url, USERS.admin)).access_token;
});
t.after(async () => ctx.server?.close());

interface Answer {
  status: number;
  body: Record<string, unknown>;
}
async function call(method: string, path: string, json?: unknown): Promise<Answer> {
  const res = await fetch(`${ctx.server.url}${path}`, {
    method,
    headers: { ...bearer(ctx.admin), ...(json === undefined ? {} : { 'Content-Type': 'application/json' }) },
    ...(json === undefined ? {} : { body: JSON.stringify(json) }),
  });
  const text = await res.text();
  return { status: res.status, body: text === '' ? {} : (JSON.parse(text) as Record<string, unknown>) };
}
const create = (username: string, more: Record<string, unknown> = {}) =>
  call('POST', '/app/admin/users', { username, password: 'kestrel-maple-91', roles: ['USER'], ...more });
const type = (a: Answer): unknown => a.body['type'];
const emailOf = (a: Answer): unknown => a.body['email'];
const listed = async (prefix: string): Promise<unknown[]> =>
  ((await call('GET', `/app/admin/users?username=${prefix}`)).body['items'] as { email: unknown }[]).map(
    (a) => a.email,
  );
/** The fields a validation problem names. */
const fieldsOf = (a: Answer): unknown[] => ((a.body['errors'] ?? []) as { field: unknown }[]).map((e) => e.field);

t('POST › 201 with the email trimmed and shown by GET and the listing; none is null', async () => {
  const made = await create('ann', { email: '  Ann.Lee@Example.com ' });
  assert.is(made.status, 201);
  assert.is(emailOf(made), 'Ann.Lee@Example.com');
  assert.is(emailOf(await call('GET', `/app/admin/users/${String(made.body['id'])}`)), 'Ann.Lee@Example.com');
  assert.equal(await listed('ann'), ['Ann.Lee@Example.com']);
  const none = await create('bea');
  assert.is(none.status, 201);
  assert.is(emailOf(none), null);
  assert.ok(Object.hasOwn(none.body, 'email'), 'the field is there, null');
  assert.is(emailOf(await create('bel', { email: null })), null, 'null: none');
  assert.equal(await listed('be'), [null, null], 'several accounts without an email');
});

t('POST › 409 account.email_taken for an email another account has in another case; nothing created', async () => {
  assert.is((await create('cal', { email: 'cal@example.com' })).status, 201);
  const taken = await create('cam', { email: 'CAL@Example.COM' });
  assert.is(taken.status, 409);
  assert.is(type(taken), 'urn:problem:troupe:account.email_taken');
  assert.is(taken.body['detail'], 'Another account has the email');
  assert.equal(await listed('cam'), [], 'nothing was created');
  const both = await create('cal', { email: 'cal@example.com' });
  assert.is(type(both), 'urn:problem:troupe:account.username_taken', 'the username is judged first');
});

t('PATCH › changes the email, keeps it when absent, clears it with null; a cleared email is free', async () => {
  const dee = await create('dee', { email: 'dee@example.com' });
  const path = `/app/admin/users/${String(dee.body['id'])}`;
  const changed = await call('PATCH', path, { email: 'Dee.Doe@Example.com' });
  assert.is(changed.status, 200);
  assert.is(emailOf(changed), 'Dee.Doe@Example.com');
  assert.is(emailOf(await call('PATCH', path, { firstName: 'Dee' })), 'Dee.Doe@Example.com', 'absent: kept');
  assert.is(emailOf(await call('PATCH', path, { email: 'dee.doe@example.com' })), 'dee.doe@example.com', 'own');
  const cleared = await call('PATCH', path, { email: null });
  assert.is(cleared.status, 200);
  assert.is(emailOf(cleared), null);
  assert.is(emailOf(await call('GET', path)), null);
  assert.equal(await listed('dee'), [null]);
  assert.is(emailOf(await create('dex', { email: 'DEE.DOE@example.com' })), 'DEE.DOE@example.com');
});

t('PATCH › 409 account.email_taken for another account email in another case; nothing changed', async () => {
  await create('eli', { email: 'eli@example.com' });
  const eva = await create('eva', { email: 'eva@example.com' });
  const path = `/app/admin/users/${String(eva.body['id'])}`;
  const taken = await call('PATCH', path, { email: 'ELI@example.com', firstName: 'Eva', roles: ['USER', 'ADMIN'] });
  assert.is(taken.status, 409);
  assert.is(type(taken), 'urn:problem:troupe:account.email_taken');
  const after = await call('GET', path);
  assert.equal([emailOf(after), after.body['firstName'], after.body['roles']], ['eva@example.com', '', ['USER']]);
});

t('POST and PATCH › 400 validation for an email that is not an address; nothing written', async () => {
  for (const email of ['not-an-address', 'a@b', '', ' ', 42, `${'x'.repeat(250)}@example.com`, 'ü@example.com']) {
    const refused = await create('fay', { email });
    assert.is(refused.status, 400, JSON.stringify(email));
    assert.is(type(refused), 'urn:problem:troupe:validation');
    const fields = fieldsOf(refused);
    assert.ok(fields.length > 0 && fields.every((f) => f === 'email'), `${JSON.stringify(email)}: ${fields.join()}`);
  }
  assert.equal(await listed('fay'), [], 'nothing was created');
  const gus = await create('gus', { email: 'gus@example.com' });
  const path = `/app/admin/users/${String(gus.body['id'])}`;
  const refused = await call('PATCH', path, { email: 'gus at example.com' });
  assert.is(refused.status, 400);
  assert.is(type(refused), 'urn:problem:troupe:validation');
  assert.is(emailOf(await call('GET', path)), 'gus@example.com');
});

t.run();

/**
 * Account administration across two instances on one SQLite data directory: a change made at one
 * takes effect at the other on its next request, and a restart keeps every change (the initial
 * data only seeds).
 */
import * as assert from 'uvu/assert';
import { startChildServer, type ChildServer } from '../helpers/child.ts';
import { administeredPairSuite, introspectsActive, listAllStatus, SHARED } from '../helpers/instances.ts';
import { bearer, login, postToken, USERS, type TokenResponse } from '../helpers/tokens.ts';

const { t, ctx } = administeredPairSuite('account administration across instances (SQLite)');

const admin = (server: ChildServer, method: string, path: string, json?: unknown): Promise<Response> =>
  fetch(`${server.url}${path}`, {
    method,
    headers: { ...bearer(ctx.admin), ...(json === undefined ? {} : { 'Content-Type': 'application/json' }) },
    ...(json === undefined ? {} : { body: JSON.stringify(json) }),
  });

t('disabling at one instance refuses every token of the account at the other at once', async () => {
  const made = await admin(ctx.a, 'POST', '/app/admin/users', {
    username: 'nia',
    password: 'nutmeg-password',
    roles: ['USER'],
  });
  assert.is(made.status, 201);
  const id = ((await made.json()) as { id: number }).id;
  const grant = await login(ctx.b.url, { username: 'nia', password: 'nutmeg-password' });
  assert.is(await listAllStatus(ctx.b, grant.access_token), 200);
  assert.is(await listAllStatus(ctx.b, grant.access_token), 200, 'verified and cached at B');
  assert.is((await admin(ctx.a, 'PATCH', `/app/admin/users/${id}`, { enabled: false })).status, 200);
  assert.is(await listAllStatus(ctx.b, grant.access_token), 401);
  assert.is(await introspectsActive(ctx.b, grant.access_token), false);
  assert.is(await introspectsActive(ctx.b, grant.refresh_token ?? ''), false);
  const refreshed = await postToken(ctx.b.url, {
    grant_type: 'refresh_token',
    refresh_token: grant.refresh_token ?? '',
  });
  assert.is(refreshed.status, 400);
  const disabled = await postToken(ctx.b.url, { grant_type: 'password', username: 'nia', password: 'nutmeg-password' });
  const wrong = await postToken(ctx.b.url, { grant_type: 'password', username: 'nia', password: 'wrong-password' });
  assert.equal([disabled.status, await disabled.json()], [wrong.status, await wrong.json()]);
});

t('a password set and logins ended at one instance end them at the other; a role change too', async () => {
  const made = await admin(ctx.b, 'POST', '/app/admin/users', {
    username: 'oli',
    password: 'osier-password',
    roles: ['USER'],
  });
  const id = ((await made.json()) as { id: number }).id;
  const first = await login(ctx.a.url, { username: 'oli', password: 'osier-password' });
  assert.is(await listAllStatus(ctx.a, first.access_token), 200);
  assert.is(
    (await admin(ctx.b, 'PUT', `/app/admin/users/${id}/password`, { password: 'osier-password-2' })).status,
    204,
  );
  assert.is(await listAllStatus(ctx.a, first.access_token), 401);
  const second = await login(ctx.a.url, { username: 'oli', password: 'osier-password-2' });
  assert.is((await admin(ctx.b, 'DELETE', `/app/admin/users/${id}/sessions`)).status, 204);
  assert.is(await listAllStatus(ctx.a, second.access_token), 401);
  const third = await login(ctx.a.url, { username: 'oli', password: 'osier-password-2' });
  const greeting = (server: ChildServer, token: string) =>
    fetch(`${server.url}/app/admin`, { headers: bearer(token) }).then((r) => r.status);
  assert.is(await greeting(ctx.a, third.access_token), 403);
  assert.is((await admin(ctx.b, 'PATCH', `/app/admin/users/${id}`, { roles: ['USER', 'ADMIN'] })).status, 200);
  assert.is(await listAllStatus(ctx.a, third.access_token), 401, 'issued before the role change');
  const next = (await (
    await postToken(ctx.a.url, { grant_type: 'refresh_token', refresh_token: third.refresh_token ?? '' })
  ).json()) as TokenResponse;
  assert.is(await greeting(ctx.a, next.access_token), 200, 'the refresh carries ADMIN');
});

t('a restart keeps every change: the initial data never overwrites them', async () => {
  const john = await admin(ctx.a, 'PATCH', '/app/admin/users/2', { roles: ['USER'], firstName: 'Jon' });
  assert.is(john.status, 200);
  assert.is((await admin(ctx.a, 'PUT', '/app/admin/users/1/password', { password: 'ash-password-2' })).status, 204);
  for (const s of [ctx.a, ctx.b]) {
    s.child.kill('SIGTERM');
    await s.exited;
  }
  const again = await startChildServer(ctx.instances.dataDir, SHARED);
  try {
    ctx.admin = (await login(again.url, { username: 'admin', password: 'ash-password-2' })).access_token;
    const old = await postToken(again.url, { grant_type: 'password', ...USERS.admin });
    assert.is(old.status, 400, 'the published password was not restored');
    const jon = (await (await admin(again, 'GET', '/app/admin/users/2')).json()) as {
      firstName: string;
      roles: string[];
    };
    assert.equal([jon.firstName, jon.roles], ['Jon', ['USER']]);
    const nia = (await (await admin(again, 'GET', '/app/admin/users?username=nia')).json()) as {
      items: { enabled: boolean }[];
    };
    assert.is(nia.items[0]?.enabled, false);
  } finally {
    again.child.kill('SIGTERM');
    await again.exited;
  }
});

t.run();

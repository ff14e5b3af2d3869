/**
 * Sign-in sessions across two instances on one SQLite data directory: a session begun at one signs
 * in at the other without the password (single sign-on whichever process a request reaches), and an
 * account change made at one ends the session at the other on its next request.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { authorizeUrl, openForm, pkce, redirectedTo, submit } from '../helpers/authorize.ts';
import type { ChildServer } from '../helpers/child.ts';
import { CLIENTS, clientsFile, SPA, WEB } from '../helpers/clients.ts';
import { startInstances, type Instances } from '../helpers/instances.ts';
import { bearer, login, USERS } from '../helpers/tokens.ts';

interface Ctx {
  instances: Instances;
  a: ChildServer;
  b: ChildServer;
  admin: string;
}
const ctx = {} as Ctx;
const t = suite('sign-in sessions across instances (SQLite)', ctx);

t.before(async () => {
  ctx.instances = await startInstances(2, { SECURITY_CLIENTS_FILE: clientsFile(CLIENTS) });
  const [a, b] = ctx.instances.servers;
  if (!a || !b) throw new Error('two instances expected');
  Object.assign(ctx, { a, b, admin: (await login(a.url, USERS.admin)).access_token });
});
t.after(async () => ctx.instances?.close());

const { challenge } = pkce();
const request = (c: { id: string; redirect: string }) => ({
  response_type: 'code',
  client_id: c.id,
  redirect_uri: c.redirect,
  scope: 'read',
  state: 'across',
  code_challenge: challenge,
  code_challenge_method: 'S256',
});

/** Signs `user` in at `server` with the password; the session cookie (`name=value`). */
async function signIn(server: ChildServer, user: { username: string; password: string }): Promise<string> {
  const form = await openForm(authorizeUrl(server.url, request(WEB)));
  assert.is(form.status, 200, 'the sign-in form');
  const res = await submit(server.url, form, user);
  assert.is(res.status, 303);
  const cookie = res.headers.getSetCookie().find((c) => c.startsWith('troupe_session='));
  assert.ok(cookie, 'a session cookie');
  return cookie.split(';')[0] ?? '';
}

/** Whether an authorization at `server` with `cookie` gets its code at once (true) or shows the sign-in form. */
async function signedIn(server: ChildServer, cookie: string): Promise<boolean> {
  const res = await openForm(authorizeUrl(server.url, request(SPA)), { Cookie: cookie });
  if (res.status === 200) return false;
  assert.is(res.status, 302);
  assert.ok(redirectedTo(res as unknown as Response).searchParams.get('code'), 'a code through the session');
  return true;
}

const admin = (server: ChildServer, method: string, path: string, json?: unknown): Promise<Response> =>
  fetch(`${server.url}${path}`, {
    method,
    headers: { ...bearer(ctx.admin), ...(json === undefined ? {} : { 'Content-Type': 'application/json' }) },
    ...(json === undefined ? {} : { body: JSON.stringify(json) }),
  });

t('a session begun at one instance signs in at the other without the password, both ways', async () => {
  for (const [begun, used] of [
    [ctx.a, ctx.b],
    [ctx.b, ctx.a],
  ] as const) {
    const cookie = await signIn(begun, USERS.john);
    assert.ok(await signedIn(used, cookie), 'single sign-on at the other process');
    assert.ok(await signedIn(begun, cookie));
  }
});

t('disabling, a new password or logins ended at one instance end the session at the other', async () => {
  const made = await admin(ctx.a, 'POST', '/app/admin/users', {
    username: 'sana',
    password: 'saffron-password',
    roles: ['USER'],
  });
  assert.is(made.status, 201);
  const id = ((await made.json()) as { id: number }).id;
  const user = { username: 'sana', password: 'saffron-password' };

  const first = await signIn(ctx.a, user);
  assert.ok(await signedIn(ctx.b, first), 'used at B');
  assert.is((await admin(ctx.a, 'PATCH', `/app/admin/users/${id}`, { enabled: false })).status, 200);
  assert.not.ok(await signedIn(ctx.b, first), 'ended at B by the change made at A');
  assert.is((await admin(ctx.b, 'PATCH', `/app/admin/users/${id}`, { enabled: true })).status, 200);
  assert.not.ok(await signedIn(ctx.a, first), 'enabling again does not bring the session back');

  const second = await signIn(ctx.b, user);
  assert.ok(await signedIn(ctx.a, second));
  assert.is(
    (await admin(ctx.b, 'PUT', `/app/admin/users/${id}/password`, { password: 'saffron-password-2' })).status,
    204,
  );
  assert.not.ok(await signedIn(ctx.a, second), 'a new password set at B ends it at A');

  const third = await signIn(ctx.a, { username: 'sana', password: 'saffron-password-2' });
  assert.ok(await signedIn(ctx.b, third));
  assert.is((await admin(ctx.b, 'DELETE', `/app/admin/users/${id}/sessions`)).status, 204);
  assert.not.ok(await signedIn(ctx.a, third), 'logins ended at B end the sign-in session at A');
});

t.run();

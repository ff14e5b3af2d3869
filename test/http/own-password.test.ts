/**
 * `PUT /app/me/password` is throttled and logged like a login: a wrong current password counts in
 * the login throttle's counts of the account and the address (shared with the password grant and
 * the sign-in form), past them it is 429 before any BCrypt work, and each outcome is a security
 * event. One account has one check under way at a time in a process: a fair share of the pool.
 */
import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Guards } from '../../http/guards.ts';
import { dispatch, mountRoutes } from '../../http/route-table.ts';
import type * as Accounts from '../../actors/accounts/protocol.ts';
import { bearerAuthenticator } from '../../http/middleware/bearer-auth.ts';
import { requestFrame } from '../../http/middleware/frame.ts';
import { accountLoginRoutes } from '../../http/routes/account-logins.ts';
import type { AppState } from '../../http/state.ts';
import { createLogger } from '../../src/logger.ts';
import { createMetrics } from '../../src/telemetry/metrics.ts';
import { spawn, startSystem, stopSystem, tell, type Ref } from '../../src/messaging/nact.ts';
import { ok } from '../../src/messaging/reply.ts';
import type { Principal } from '../../src/security/jwt.ts';
import { CLIENTS, clientsFile, SERVICE } from '../helpers/clients.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { basic, bearer, login, postToken, USERS } from '../helpers/tokens.ts';

type Line = Record<string, unknown>;

const s = suite(
  'PUT /app/me/password: throttled and logged like a login',
  {} as { server: TestServer; lines: string[] },
);
s.before(async (c) => {
  c.lines = [];
  const sink = { write: (line: string) => c.lines.push(line) } as unknown as NodeJS.WritableStream;
  c.server = await startTestServer(
    {
      'logging.level': 'info',
      'security.login-throttle.max-failures-per-user': '3',
      'security.login-throttle.window-seconds': '600',
      'security.clients-file': clientsFile(CLIENTS),
    },
    undefined,
    sink,
  );
});
s.after(async (c) => c.server?.close());

const eventsOf = (lines: readonly string[], event: string, username: string): Line[] =>
  lines.map((l) => JSON.parse(l) as Line).filter((l) => l['event'] === event && l['username'] === username);

s(
  'wrong current passwords count and are logged; past the count 429 before BCrypt, the grant too; unlocked, it works',
  async (c) => {
    const admin = (await login(c.server.url, USERS.admin)).access_token;
    const made = await fetch(`${c.server.url}/app/admin/users`, {
      method: 'POST',
      headers: { ...bearer(admin), 'Content-Type': 'application/json' },
      body: JSON.stringify({ username: 'ora', password: 'oak-password-1', roles: ['USER'] }),
    });
    assert.is(made.status, 201);
    const id = ((await made.json()) as { id: number }).id;
    const mine = (await login(c.server.url, { username: 'ora', password: 'oak-password-1' })).access_token;
    const change = (currentPassword: string) =>
      fetch(`${c.server.url}/app/me/password`, {
        method: 'PUT',
        headers: { ...bearer(mine), 'Content-Type': 'application/json' },
        body: JSON.stringify({ currentPassword, newPassword: 'oak-password-2' }),
      });
    for (let i = 0; i < 3; i++) assert.is((await change(`wrong-${i}-password`)).status, 400);
    assert.is(eventsOf(c.lines, 'password.change_failed', 'ora').length, 3);
    const held = await change('oak-password-1');
    assert.is(held.status, 429, 'the right password too: no BCrypt work past the count');
    assert.ok(Number(held.headers.get('retry-after')) > 0);
    const heldBody = (await held.json()) as { type: string; detail: string };
    assert.is(heldBody.type, 'urn:problem:troupe:too_many_requests');
    assert.match(heldBody.detail, /^Too many password checks; retry in \d+ seconds$/, 'failures, not checks at once');
    const grant = await postToken(c.server.url, {
      grant_type: 'password',
      username: 'ora',
      password: 'oak-password-1',
    });
    assert.is(grant.status, 429, "the password grant shares the account's count");
    assert.is(
      (await fetch(`${c.server.url}/app/admin/users/${id}/lockout`, { method: 'DELETE', headers: bearer(admin) }))
        .status,
      204,
    );
    assert.is((await change('oak-password-1')).status, 204);
    assert.is(eventsOf(c.lines, 'password.changed', 'ora').length, 1);
    assert.not.ok(
      c.lines.some(
        (l) => l.includes('oak-password-1') || l.includes('oak-password-2') || l.includes('wrong-0-password'),
      ),
      'no password in the log',
    );
    assert.is(
      (
        await postToken(
          c.server.url,
          { grant_type: 'password', username: 'ora', password: 'oak-password-2' },
          { Authorization: basic() },
        )
      ).status,
      200,
    );
  },
);

s("a third-party client's own token (client_credentials): 403 insufficient_scope, its body unread", async (c) => {
  const grant = await postToken(
    c.server.url,
    { grant_type: 'client_credentials' },
    { Authorization: basic(SERVICE.id, SERVICE.secret) },
  );
  assert.is(grant.status, 200);
  const { access_token } = (await grant.json()) as { access_token: string };
  const res = await fetch(`${c.server.url}/app/me/password`, {
    method: 'PUT',
    headers: { ...bearer(access_token), 'Content-Type': 'application/json' },
    body: JSON.stringify({ currentPassword: 'any-password-1', newPassword: 'a-new-password-9' }),
  });
  assert.is(res.status, 403);
  assert.is(((await res.json()) as { error: string }).error, 'insufficient_scope');
});

s.run();

/**
 * The route on its own, with an account actor that holds the check until told: a second change of
 * the same account while the first is under way is 429 at once; another account's is not held up.
 */
const f = suite('PUT /app/me/password: one check per account at a time');
const ACCOUNT_IDS: Readonly<Record<string, number>> = { uma: 7, vic: 8 };

f('a second change of the account while one is under way is 429; another account goes through', async () => {
  const system = startSystem('own-password-fair-share');
  const held: { sender: Ref<unknown>; accountId: number }[] = [];
  let arrived = (): void => {};
  const accounts = spawn<null, Accounts.Command>(
    system,
    (state, msg) => {
      if (msg.type === 'ChangeOwnPassword') {
        held.push({ sender: msg.sender as Ref<unknown>, accountId: msg.accountId });
        arrived();
      }
      return state;
    },
    { name: 'accounts-held', initialState: () => null },
  );
  const principal = (username: string): Principal => ({
    username,
    subject: 'account:1',
    clientId: 'c',
    scope: ['read', 'write'],
    authorities: ['USER'],
    jti: username,
    exp: Math.floor(Date.now() / 1000) + 600,
    iat: 0,
    loginId: undefined,
    kid: 'k',
    accountId: ACCOUNT_IDS[username] ?? 0,
    accountVersion: 0,
  });
  const guards: Guards = {
    ...bearerAuthenticator({ enabled: true, realm: 'test', verify: async (t) => principal(t) }),
    client: async () => assert.unreachable('no client routes'),
    confidentialClient: async () => assert.unreachable('no client routes'),
    realm: 'test',
    firstParty: (clientId) => clientId === 'c',
  };
  const routes = accountLoginRoutes({
    accounts,
    askTimeoutMs: 5000,
    maxBodyBytes: 10_000,
    scopeRead: 'read',
    scopeWrite: 'write',
    logger: createLogger('silent'),
  });
  const app = new Koa<AppState>();
  app.silent = true;
  const router = mountRoutes(routes, guards);
  app.use(requestFrame(createLogger('silent'), createMetrics()));
  app.use(dispatch(router, guards));
  const server: Server = app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const change = (who: string) =>
    fetch(`${url}/app/me/password`, {
      method: 'PUT',
      headers: { Authorization: `Bearer ${who}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ currentPassword: 'current-password', newPassword: 'a-new-password-9' }),
    });
  try {
    let first = new Promise<void>((resolve) => (arrived = resolve));
    const pending = change('uma');
    await first;
    const second = await change('uma');
    assert.is(second.status, 429, 'the same account, while its first check is under way');
    assert.is(second.headers.get('retry-after'), '1');
    assert.is(
      ((await second.json()) as { detail: string }).detail,
      'Too many password checks under way at once; retry in 1 seconds',
      'not a count of failures',
    );
    first = new Promise<void>((resolve) => (arrived = resolve));
    const other = change('vic');
    await first;
    assert.equal(
      held.map((h) => h.accountId),
      [ACCOUNT_IDS['uma'], ACCOUNT_IDS['vic']],
      "another account's check is not held up",
    );
    for (const h of held.splice(0)) tell(h.sender, ok(null));
    assert.equal([(await pending).status, (await other).status], [204, 204]);
    first = new Promise<void>((resolve) => (arrived = resolve));
    const third = change('uma');
    await first;
    for (const h of held.splice(0)) tell(h.sender, ok(null));
    assert.is((await third).status, 204, 'once answered, the account may change it again');
  } finally {
    server.close();
    stopSystem(system);
  }
});

f.run();

/**
 * `npm run repl` against a running server on the same data directory: what the REPL writes is
 * served over HTTP at once, and what HTTP revokes is refused in the REPL.
 */
import { rmSync } from 'node:fs';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startChildServer, type ChildServer } from '../helpers/child.ts';
import { SHARED } from '../helpers/instances.ts';
import { startReplChild, type ReplChild } from '../helpers/repl.ts';
import { tempDir } from '../helpers/server.ts';
import { basic, login } from '../helpers/tokens.ts';
import { send, type UserActivityJson } from '../helpers/user-data.ts';

interface Ctx {
  dataDir: string;
  server: ChildServer;
  repl: ReplChild;
}
const ctx = {} as Ctx;
const t = suite('several processes: the REPL beside a running server', ctx);

t.before(async () => {
  ctx.dataDir = tempDir('troupe-repl-live-');
  // The same issuer: tokens name it, and every process checks it.
  ctx.server = await startChildServer(ctx.dataDir, SHARED);
  ctx.repl = await startReplChild({ DATA_DIR: ctx.dataDir, ...SHARED });
});
t.after(async () => {
  ctx.repl?.child.kill('SIGKILL');
  ctx.server?.child.kill('SIGTERM');
  await ctx.server?.exited;
  rmSync(ctx.dataDir, { recursive: true, force: true });
});

t('a user created in the REPL is served over HTTP at once, with its activity', async () => {
  const created = await ctx.repl.type("await ask(users, Post({ name: 'Repl Made', email: 'repl@example.com' }))");
  const id = /id: '([0-9a-f]{24})'/.exec(created)?.[1];
  assert.ok(id, created);
  const token = (await login(ctx.server.url)).access_token;
  const res = await send(ctx.server.url, 'GET', `/api/users/activity?userId=${id}`, { token });
  assert.is(res.status, 200);
  const body = res.body as UserActivityJson;
  assert.is(body.user.name, 'Repl Made');
  assert.equal(
    body.activities.map((a) => a.type),
    ['USER_CREATED'],
  );
  const taken = await send(ctx.server.url, 'POST', '/api/user', {
    token,
    json: { name: 'Other', email: 'REPL@example.com' },
  });
  assert.is(taken.status, 409);
});

t('a token revoked over HTTP is refused in the REPL', async () => {
  const { access_token: token } = await login(ctx.server.url);
  const ask = `(await ask(token, Token.introspect({ clientId: 'troupe-client', token: '${token}' }))).value.active`;
  assert.match(await ctx.repl.type(ask), /true/);
  const revoke = await fetch(`${ctx.server.url}/oauth/revoke`, {
    method: 'POST',
    headers: { Authorization: basic(), 'Content-Type': 'application/x-www-form-urlencoded' },
    body: `token=${token}`,
  });
  assert.is(revoke.status, 200);
  assert.match(await ctx.repl.type(ask), /false/);
});

t.run();

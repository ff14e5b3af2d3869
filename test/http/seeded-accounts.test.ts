/**
 * Deleting an account of the initial data is final: the next start on the same data directory does
 * not create it again (a warning names it), and one created again through administration is kept as
 * it was made, the seeded password no longer working.
 */
import { rmSync } from 'node:fs';
import { Writable } from 'node:stream';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestServer, tempDir, type TestServer } from '../helpers/server.ts';
import { bearer, login, postToken, USERS } from '../helpers/tokens.ts';

interface Ctx {
  dataDir: string;
  server: TestServer | undefined;
  log: string[];
}
const ctx = { log: [] } as unknown as Ctx;
const t = suite('a deleted account of the initial data over a restart', ctx);

/** Starts the server on the suite's data directory, its log lines kept in `ctx.log`. */
async function start(): Promise<TestServer> {
  await ctx.server?.stop();
  ctx.log = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      ctx.log.push(chunk.toString('utf8'));
      done();
    },
  });
  ctx.server = await startTestServer({ 'security.password.bcrypt-cost': '4' }, ctx.dataDir, sink);
  return ctx.server;
}
const passwordGrant = (url: string, user: { username: string; password: string }) =>
  postToken(url, { grant_type: 'password', ...user });
const accountsAt = async (url: string, token: string): Promise<{ id: number; username: string }[]> =>
  (await fetch(`${url}/app/listAll`, { headers: bearer(token) })).json() as Promise<{ id: number; username: string }[]>;
const skipped = (): { account?: string; level?: number; msg?: string }[] =>
  ctx.log
    .flatMap((chunk) => chunk.split('\n').filter(Boolean))
    .map((line) => JSON.parse(line) as { account?: string; level?: number; msg?: string })
    .filter((line) => line.msg?.startsWith('an account of the initial data is not created again') === true);

t.before(() => {
  ctx.dataDir = tempDir('troupe-seeded-');
});
t.after(async () => {
  await ctx.server?.stop();
  rmSync(ctx.dataDir, { recursive: true, force: true });
});

t(
  'DELETE /app/admin/users/:id of a seeded ADMIN, then a restart › it stays deleted, and a warning names it',
  async () => {
    const first = await start();
    const john = (await login(first.url, USERS.john)).access_token;
    const admin = (await accountsAt(first.url, john)).find((a) => a.username === 'admin');
    assert.ok(admin, 'the initial data seeded admin');
    const deleted = await fetch(`${first.url}/app/admin/users/${admin.id}`, {
      method: 'DELETE',
      headers: bearer(john),
    });
    assert.is(deleted.status, 204);
    assert.equal(skipped(), [], 'nothing was skipped at the first start');

    const again = await start();
    const refused = await passwordGrant(again.url, USERS.admin);
    assert.is(refused.status, 400);
    assert.is(((await refused.json()) as { error: string }).error, 'invalid_grant');
    const johnAgain = (await login(again.url, USERS.john)).access_token;
    assert.equal(
      (await accountsAt(again.url, johnAgain)).map((a) => a.username),
      ['john.doe'],
    );
    const [warning, ...more] = skipped();
    assert.equal(more, []);
    assert.is(warning?.account, 'admin');
    assert.is(warning?.level, 40, 'at warn');
    assert.not.match(ctx.log.join(''), /\$2[aby]\$/, 'no hash in the log');
  },
);

t('a seeded account created again through administration › kept as made, at every later start', async () => {
  const server = ctx.server ?? (await start());
  const john = (await login(server.url, USERS.john)).access_token;
  const made = await fetch(`${server.url}/app/admin/users`, {
    method: 'POST',
    headers: { ...bearer(john), 'Content-Type': 'application/json' },
    body: JSON.stringify({ username: 'admin', password: 'brand-new-secret', roles: ['ADMIN'] }),
  });
  assert.is(made.status, 201);
  const restarted = await start();
  assert.ok((await login(restarted.url, { username: 'admin', password: 'brand-new-secret' })).access_token);
  assert.is((await passwordGrant(restarted.url, USERS.admin)).status, 400, 'the seeded password is not restored');
  assert.equal(skipped(), [], 'it exists: nothing to warn of');
});

t.run();

import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import bcrypt from 'bcryptjs';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { postToken, USERS } from '../helpers/tokens.ts';

const t = suite('POST /oauth/token › failed-login throttling', {} as { server: TestServer });
t.before(async (c) => {
  c.server = await startTestServer({
    'security.login-throttle.max-failures-per-user': '3', 'security.login-throttle.max-failures-per-address': '8', 'security.login-throttle.window-seconds': '60',
  });
});
t.after(async (c) => c.server?.close());

const attempt = (url: string, username: string, password: string) => postToken(url, { grant_type: 'password', username, password });

t('failures per username past the limit → 429 with Retry-After, even with the right password', async ({ server }) => {
  for (let i = 0; i < 3; i++) assert.is((await attempt(server.url, 'admin', 'wrong')).status, 400);
  const res = await attempt(server.url, 'admin', 'admin-password');
  assert.is(res.status, 429);
  const wait = Number(res.headers.get('retry-after'));
  assert.ok(wait >= 1 && wait <= 60, `Retry-After ${wait}`);
  assert.is(((await res.json()) as { error: string }).error, 'too_many_requests');
  assert.is((await attempt(server.url, 'ADMIN', 'whatever')).status, 429, 'usernames are compared case-insensitively');
});

t('a successful login resets the username\'s failures', async ({ server }) => {
  for (let i = 0; i < 2; i++) assert.is((await attempt(server.url, 'john.doe', 'wrong')).status, 400);
  assert.is((await attempt(server.url, 'john.doe', 'john-password')).status, 200);
  for (let i = 0; i < 2; i++) assert.is((await attempt(server.url, 'john.doe', 'wrong')).status, 400);
  assert.is((await attempt(server.url, 'john.doe', USERS.john.password)).status, 200);
});

t('failures per client address past the limit → 429, whatever the username', async ({ server }) => {
  // 3 failures for admin and 4 for john.doe so far come from this address; one more reaches 8.
  assert.is((await attempt(server.url, 'ghost-1', 'x')).status, 400);
  const res = await attempt(server.url, 'ghost-2', 'x');
  assert.is(res.status, 429);
  assert.ok(Number(res.headers.get('retry-after')) >= 1);
});

t.run();

const long = suite('POST /oauth/token › passwords over 72 bytes', {} as { server: TestServer });
long.before(async (c) => { c.server = await startTestServer(); });
long.after(async (c) => c.server?.close());
long('a password over 72 bytes → 400 invalid_request instead of a silently truncated comparison', async ({ server }) => {
  const res = await attempt(server.url, 'john.doe', `john-password${'€'.repeat(20)}`);
  assert.is(res.status, 400);
  const body = (await res.json()) as { error: string; error_description: string };
  assert.is(body.error, 'invalid_request');
  assert.match(body.error_description, /72 bytes/);
});
long.run();

const run = promisify(execFile);
const hash = suite('npm run hash');
hash('prints a BCrypt hash of the secret, from the argument or standard input', async () => {
  const { stdout } = await run(process.execPath, ['--import', 'tsx', 'scripts/hash.ts', 'troupe-secret', '--cost', '4']);
  assert.match(stdout, /^\$2b\$04\$/);
  assert.ok(bcrypt.compareSync('troupe-secret', stdout.trim()));
});
hash('refuses a secret over 72 bytes', async () => {
  try {
    await run(process.execPath, ['--import', 'tsx', 'scripts/hash.ts', 'x'.repeat(73)]);
    assert.unreachable('should fail');
  } catch (error) {
    assert.is((error as { code: number }).code, 2);
    assert.match((error as { stderr: string }).stderr, /72 bytes/);
  }
});
hash.run();

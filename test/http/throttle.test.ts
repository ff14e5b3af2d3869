import { execFile } from 'node:child_process';
import { request } from 'node:http';
import { promisify } from 'node:util';
import bcrypt from 'bcryptjs';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { openReader } from '../helpers/faults.ts';
import { serverSuite, startTestServer, type TestServer } from '../helpers/server.ts';
import { basic, postToken, USERS } from '../helpers/tokens.ts';
import { CLIENTS, clientsFile } from '../helpers/clients.ts';
import { ConfigError } from '../../src/config.ts';

interface Answer {
  readonly status: number;
  readonly retryAfter: number;
  readonly error: string | undefined;
}

/** A form posted to `path` from the loopback address `from` (127.0.0.0/8 all reach the server). */
function formFrom(
  url: string,
  path: string,
  authorization: string,
  body: string,
  from: string,
): Promise<Answer & { body: unknown }> {
  return new Promise((resolve, reject) => {
    request(
      `${url}${path}`,
      {
        method: 'POST',
        localAddress: from,
        agent: false,
        headers: {
          Authorization: authorization,
          'Content-Type': 'application/x-www-form-urlencoded',
          'Content-Length': Buffer.byteLength(body),
        },
      },
      (res) => {
        let text = '';
        res
          .setEncoding('utf8')
          .on('data', (chunk: string) => {
            text += chunk;
          })
          .on('end', () => {
            const parsed = JSON.parse(text) as { error?: string };
            resolve({
              status: res.statusCode ?? 0,
              retryAfter: Number(res.headers['retry-after'] ?? 0),
              error: parsed.error,
              body: parsed,
            });
          });
      },
    )
      .on('error', reject)
      .end(body);
  });
}

/** A password grant sent from the loopback address `from`. */
const attempt = (url: string, username: string, password: string, from = '127.0.0.1'): Promise<Answer> =>
  formFrom(
    url,
    '/oauth/token',
    basic(),
    new URLSearchParams({ grant_type: 'password', username, password }).toString(),
    from,
  );

const statuses = async (answers: Promise<Answer>[]): Promise<number[]> =>
  (await Promise.all(answers)).map((a) => a.status);

const t = suite('POST /oauth/token › failed-login throttling', {} as { server: TestServer; url: string });
t.before.each(async (c) => {
  c.server = await startTestServer({
    'security.login-throttle.max-failures-per-user': '3',
    'security.login-throttle.max-failures-per-address': '8',
    'security.login-throttle.window-seconds': '60',
  });
  c.url = c.server.url;
});
t.after.each(async (c) => c.server?.close());

t(
  'failures per username past the limit → 429 with Retry-After, also with the right password from an address that never logged in as the user',
  async ({ url }) => {
    for (let i = 0; i < 3; i++) assert.is((await attempt(url, 'admin', 'wrong', '127.0.0.2')).status, 400);
    const res = await attempt(url, 'admin', 'admin-password', '127.0.0.3');
    assert.is(res.status, 429);
    assert.ok(res.retryAfter >= 1 && res.retryAfter <= 60, `Retry-After ${res.retryAfter}`);
    assert.is(res.error, 'too_many_requests');
    assert.is(
      (await attempt(url, 'ADMIN', 'whatever', '127.0.0.2')).status,
      429,
      'usernames are compared case-insensitively',
    );
  },
);

t('no lock-out: failures from elsewhere never keep a user out of an address it has logged in from', async ({ url }) => {
  assert.is((await attempt(url, 'john.doe', USERS.john.password, '127.0.0.5')).status, 200);
  for (let i = 0; i < 3; i++) assert.is((await attempt(url, 'john.doe', 'wrong', '127.0.0.6')).status, 400);
  assert.is(
    (await attempt(url, 'john.doe', USERS.john.password, '127.0.0.7')).status,
    429,
    'a new address is held back',
  );
  assert.is((await attempt(url, 'john.doe', USERS.john.password, '127.0.0.5')).status, 200, 'the known address is not');
});

t('an address the user logged in from is still held back by its own failures for that user', async ({ url }) => {
  assert.is((await attempt(url, 'john.doe', USERS.john.password, '127.0.0.8')).status, 200);
  for (let i = 0; i < 3; i++) assert.is((await attempt(url, 'john.doe', 'wrong', '127.0.0.8')).status, 400);
  assert.is((await attempt(url, 'john.doe', USERS.john.password, '127.0.0.8')).status, 429);
});

t('parallel guesses: no more than the limit reach the password check', async ({ url }) => {
  const answers = await statuses(
    Array.from({ length: 20 }, (_, i) => attempt(url, 'admin', `wrong-${i}`, '127.0.0.9')),
  );
  assert.is(answers.filter((s) => s === 400).length, 3, `statuses ${answers.join(' ')}`);
  assert.is(answers.filter((s) => s === 429).length, 17);
});

t('20 parallel logins with the right password all succeed: one guess, not twenty', async ({ url }) => {
  const answers = await statuses(
    Array.from({ length: 20 }, () => attempt(url, 'john.doe', USERS.john.password, '127.0.0.14')),
  );
  assert.equal(answers, Array<number>(20).fill(200));
  assert.is((await attempt(url, 'john.doe', USERS.john.password, '127.0.0.14')).status, 200, 'nothing stayed counted');
});

t('a successful login resets the failures of its address', async ({ url }) => {
  for (let i = 0; i < 2; i++) assert.is((await attempt(url, 'john.doe', 'wrong')).status, 400);
  assert.is((await attempt(url, 'john.doe', USERS.john.password)).status, 200);
  for (let i = 0; i < 2; i++) assert.is((await attempt(url, 'john.doe', 'wrong')).status, 400);
  assert.is((await postToken(url, { grant_type: 'password', ...USERS.john })).status, 200);
});

t('failures per client address past the limit → 429, whatever the username', async ({ url }) => {
  for (let i = 0; i < 8; i++) assert.is((await attempt(url, `ghost-${i}`, 'x', '127.0.0.10')).status, 400);
  const res = await attempt(url, 'ghost-9', 'x', '127.0.0.10');
  assert.is(res.status, 429);
  assert.ok(res.retryAfter >= 1);
  assert.is((await attempt(url, 'ghost-9', 'x', '127.0.0.11')).status, 400, 'other addresses are not held back');
});

/** A client-authenticated form (`token=x`) to `path` from the loopback address `from`. */
const clientForm = (url: string, path: string, authorization: string, from: string) =>
  formFrom(url, path, authorization, 'token=x', from);

t(
  'failed client authentications per address past the limit, in parallel too → 429 on every client-authenticated endpoint',
  async ({ url }) => {
    const from = '127.0.0.12';
    const form = async (path: string, authorization: string) =>
      (await clientForm(url, path, authorization, from)).status;
    // Each guess names another client: the address's count, not a client's, is what holds them back.
    const burst = await Promise.all(
      Array.from({ length: 20 }, (_, i) => form('/oauth/introspect', basic(`ghost-client-${i}`, `wrong-${i}`))),
    );
    assert.equal(
      [burst.filter((s) => s === 401).length, burst.filter((s) => s === 429).length],
      [8, 12],
      'a parallel burst gets no more than the limit to BCrypt',
    );
    for (const path of ['/oauth/introspect', '/oauth/revoke', '/oauth/check_token', '/oauth/token'])
      assert.is(await form(path, basic()), 429, path);
    assert.is(
      (await attempt(url, 'john.doe', USERS.john.password, '127.0.0.13')).status,
      200,
      'other addresses are not held back',
    );
  },
);

t('an address held back is refused with the right client secret too, one verified before included', async ({ url }) => {
  const from = '127.0.0.21';
  assert.is((await clientForm(url, '/oauth/introspect', basic(), from)).status, 200, 'the secret is now verified');
  for (let i = 0; i < 8; i++)
    assert.is((await clientForm(url, '/oauth/introspect', basic(`ghost-client-${i}`, 'x'), from)).status, 401);
  const res = await clientForm(url, '/oauth/introspect', basic(), from);
  assert.is(res.status, 429, 'a right guess looks like a wrong one');
  assert.ok(res.retryAfter >= 1 && res.retryAfter <= 60, `Retry-After ${res.retryAfter}`);
  assert.equal(res.body, {
    error: 'too_many_requests',
    error_description: `Too many failed client authentications; retry in ${res.retryAfter} seconds`,
  });
});

t(
  'failures per client across addresses past max-failures-per-user → 429 for a wrong secret at new addresses, never for the right one',
  async ({ url }) => {
    const introspect = async (secret: string, from: string) =>
      (await clientForm(url, '/oauth/introspect', basic('troupe-client', secret), from)).status;
    assert.is(await introspect('troupe-secret', '127.0.0.22'), 200, '127.0.0.22 is now known for the client');
    for (let i = 0; i < 3; i++) assert.is(await introspect('wrong', `127.0.0.${23 + i}`), 401);
    assert.is(await introspect('troupe-secret', '127.0.0.26'), 200, 'the right secret passes at a new address');
    assert.is(await introspect('wrong', '127.0.0.27'), 429, 'a wrong one is held back');
    assert.is(await introspect('troupe-secret', '127.0.0.22'), 200, 'the known address is not: no lock-out');
    assert.is(
      (await clientForm(url, '/oauth/introspect', basic('ghost-client', 'x'), '127.0.0.26')).status,
      401,
      'another client has a count of its own',
    );
  },
);

t(
  'a client past its count across addresses: its right secret, never verified here, passes at a new address',
  async ({ url }) => {
    const introspect = async (secret: string, from: string) =>
      (await clientForm(url, '/oauth/introspect', basic('troupe-client', secret), from)).status;
    for (let i = 0; i < 5; i++) assert.is(await introspect(`wrong-${i}`, `127.0.0.${40 + i}`), i < 3 ? 401 : 429);
    assert.is(await introspect('troupe-secret', '127.0.0.50'), 200, 'checked by BCrypt though held back');
    assert.is(await introspect('troupe-secret', '127.0.0.51'), 200);
    const wrong = await clientForm(url, '/oauth/introspect', basic('troupe-client', 'wrong-again'), '127.0.0.52');
    assert.is(wrong.status, 429, 'a wrong secret is still held back');
    assert.match(String(wrong.body && JSON.stringify(wrong.body)), /Too many failed client authentications/);
  },
);

t(
  'a burst of one client at a new address before its secret is verified: one guess, counted once, all pass',
  async ({ url }) => {
    const burst = await Promise.all(
      Array.from({ length: 12 }, () => clientForm(url, '/oauth/introspect', basic(), '127.0.0.31')),
    );
    assert.equal(
      burst.map((r) => r.status),
      Array<number>(12).fill(200),
      'its own requests in flight are not guesses past the per-client count',
    );
    const wrong = await Promise.all(
      Array.from({ length: 12 }, () => clientForm(url, '/oauth/introspect', basic('ghost-client', 'x'), '127.0.0.32')),
    );
    assert.equal(
      wrong.map((r) => r.status),
      Array<number>(12).fill(401),
      'one wrong guess sent twelve times is one failure',
    );
    assert.is((await clientForm(url, '/oauth/introspect', basic('ghost-client', 'y'), '127.0.0.33')).status, 401);
  },
);

t('a client authenticated by a secret verified before costs the database no write', async ({ url, server }) => {
  const from = '127.0.0.30';
  const client = (path: string) => clientForm(url, path, basic(), from);
  assert.is((await client('/oauth/introspect')).status, 200, 'first seen: checked, counted and given back');
  const reader = openReader(server.dataDir);
  try {
    const version = (): unknown => reader.pragma('data_version', { simple: true });
    const rows = (): unknown => reader.prepare('select count(*) from login_throttle').pluck().get();
    const before = { version: version(), rows: rows() };
    for (let i = 0; i < 5; i++) assert.is((await client('/oauth/introspect')).status, 200);
    assert.is((await client('/oauth/check_token')).status, 200, 'at the older path too');
    assert.equal({ version: version(), rows: rows() }, before, 'another connection saw no commit');
  } finally {
    reader.close();
  }
});

t("X-Forwarded-For is ignored without trusted proxies: forged addresses share the socket's count", async ({ url }) => {
  const forged = (i: number) =>
    postToken(
      url,
      { grant_type: 'password', username: `ghost-${i}`, password: 'x' },
      { Authorization: basic(), 'X-Forwarded-For': `203.0.113.${i}` },
    );
  for (let i = 0; i < 8; i++) assert.is((await forged(i)).status, 400);
  assert.is((await forged(9)).status, 429);
});

t.run();

const proxied = serverSuite('POST /oauth/token › throttling behind a trusted proxy', {
  'server.trusted-proxies': '1',
  'security.login-throttle.max-failures-per-address': '3',
});
proxied('each client is counted by the address its proxy appended to X-Forwarded-For', async ({ server }) => {
  const from = (forwarded: string, i: number) =>
    postToken(
      server.url,
      { grant_type: 'password', username: `ghost-${i}`, password: 'x' },
      { Authorization: basic(), 'X-Forwarded-For': forwarded },
    );
  for (let i = 0; i < 3; i++) assert.is((await from(`198.51.100.${i}, 203.0.113.1`, i)).status, 400);
  assert.is((await from('198.51.100.99, 203.0.113.1', 4)).status, 429, 'a forged left-hand entry changes nothing');
  assert.is((await from('203.0.113.2', 5)).status, 400, 'another client behind the proxy has its own count');
});
proxied.run();

const long = serverSuite('POST /oauth/token › passwords over 72 bytes');
long(
  'a password over 72 bytes → 400 invalid_request instead of a silently truncated comparison',
  async ({ server }) => {
    const res = await postToken(server.url, {
      grant_type: 'password',
      username: 'john.doe',
      password: `john-password${'€'.repeat(20)}`,
    });
    assert.is(res.status, 400);
    const body = (await res.json()) as { error: string; error_description: string };
    assert.is(body.error, 'invalid_request');
    assert.match(body.error_description, /72 bytes/);
  },
);
long(
  'its first 72 bytes the right password: still invalid_request, every time, and never counted as a failed login',
  async ({ server }) => {
    const overLong = { grant_type: 'password', username: 'admin', password: `admin-password${'x'.repeat(72)}` };
    for (let i = 0; i < 4; i += 1) {
      const res = await postToken(server.url, overLong);
      assert.is(res.status, 400);
      assert.equal(await res.json(), {
        error: 'invalid_request',
        error_description: 'Passwords longer than 72 bytes are not accepted',
      });
    }
    const res = await postToken(server.url, { grant_type: 'password', username: 'admin', password: 'admin-password' });
    assert.is(res.status, 200, 'the throttle counted none of them');
  },
);
long.run();

const run = promisify(execFile);
const hash = suite('npm run hash');
hash('prints a BCrypt hash of the secret, from the argument or standard input', async () => {
  const { stdout } = await run(process.execPath, ['scripts/hash.ts', 'troupe-secret', '--cost', '4']);
  assert.match(stdout, /^\$2b\$04\$/);
  assert.ok(bcrypt.compareSync('troupe-secret', stdout.trim()));
});
hash('warns of a secret that the password policy would refuse as an account password, and hashes it', async () => {
  const weak = await run(process.execPath, ['scripts/hash.ts', 'Password1', '--cost', '4']);
  assert.match(weak.stderr, /^warning: as an account's password this would be refused: .*most common passwords/);
  assert.not.match(weak.stderr, /Password1/i, 'never the secret itself');
  assert.ok(bcrypt.compareSync('Password1', weak.stdout.trim()));
  const strong = await run(process.execPath, ['scripts/hash.ts', 'correct horse battery staple', '--cost', '4']);
  assert.is(strong.stderr, '');
});
hash('refuses a secret over 72 bytes', async () => {
  try {
    await run(process.execPath, ['scripts/hash.ts', 'x'.repeat(73)]);
    assert.unreachable('should fail');
  } catch (error) {
    assert.is((error as { code: number }).code, 2);
    assert.match((error as { stderr: string }).stderr, /72 bytes/);
  }
});
hash('--client refuses a client secret shorter than 32 characters, and hashes a longer one', async () => {
  try {
    await run(process.execPath, ['scripts/hash.ts', 'example-service-secret', '--client', '--cost', '4']);
    assert.unreachable('hashed a short client secret');
  } catch (error) {
    assert.is((error as { code: number }).code, 2);
    assert.match((error as { stderr: string }).stderr, /at least 32 characters/);
    assert.not.match((error as { stderr: string }).stderr, /example-service-secret/, 'never the secret itself');
  }
  const secret = 'k3JZq0yV8cT2mR5wX9bN1fH7dL4sP6gA';
  const { stdout } = await run(process.execPath, ['scripts/hash.ts', secret, '--client', '--cost', '4']);
  assert.ok(bcrypt.compareSync(secret, stdout.trim()));
});
hash.run();

const startUp = suite('security.clients-file › client secrets guessed first');
startUp(
  'a client whose secret is its id, or a placeholder, stops the start: one line naming it, never the secret',
  async () => {
    for (const secret of ['nightly-job', 'changeme']) {
      const path = clientsFile([
        ...CLIENTS,
        { client_id: 'nightly-job', client_secret: bcrypt.hashSync(secret, 4), grant_types: ['client_credentials'] },
      ]);
      let server: TestServer | undefined;
      try {
        server = await startTestServer({ 'security.clients-file': path });
        assert.unreachable('started with a guessable client secret');
      } catch (error) {
        assert.instance(error, ConfigError);
        const message = (error as Error).message;
        assert.match(message, /^Invalid configuration: client "nightly-job" has a secret that is guessed first/);
        assert.is(message.split('\n').length, 1, 'one line');
        if (secret !== 'nightly-job') assert.not.match(message, secret, 'never the secret');
      } finally {
        await server?.close();
      }
    }
    const server = await startTestServer({ 'security.clients-file': clientsFile() });
    await server.close(); // the test clients' secrets are none of those
  },
);
startUp.run();

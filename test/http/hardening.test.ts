/**
 * Hardening of what a client can send or hold: bodies that do not decode as their
 * Content-Encoding says, over-long client secrets, tokens longer-lived than the server issues,
 * slow clients, tokens of users that no longer exist, and server metadata that claims only what
 * the server does.
 */
import { spawnSync } from 'node:child_process';
import { connect } from 'node:net';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { brotliCompressSync, gzipSync } from 'node:zlib';
import bcrypt from 'bcryptjs';
import Database from 'better-sqlite3';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { loadConfig } from '../../src/config.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { basic, bearer, forgeAccessToken, login, postToken, USERS } from '../helpers/tokens.ts';

const KEY = 'hardening-test-signing-key-0123456789abcdef';
/** A client secret of exactly 72 bytes, the most BCrypt compares. */
const LONG_SECRET = 's'.repeat(72);
const LONG_SECRET_HASH = bcrypt.hashSync(LONG_SECRET, 4);

interface Ctx {
  server: TestServer;
  logs: string[];
}
const s = suite<Ctx>('hardening: what a client sends or holds', { logs: [] } as unknown as Ctx);
s.before(async (c) => {
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      c.logs.push(...chunk.toString().split('\n').filter(Boolean));
      done();
    },
  });
  c.server = await startTestServer(
    {
      'security.signing-key': KEY,
      'security.jwt.client-secret': LONG_SECRET_HASH,
      'logging.level': 'info',
      'server.request-timeout-ms': '1000',
      'server.headers-timeout-ms': '500',
      'server.keep-alive-timeout-ms': '300',
    },
    undefined,
    sink,
  );
});
s.after(async (c) => c.server?.close());

const client = (): string => basic('troupe-client', LONG_SECRET);

s(
  "a body that does not decode as its Content-Encoding (gzip, deflate, br) → 400 in the prefix's shape, no error logged",
  async (c) => {
    const token = (await login(c.server.url, undefined, undefined, client())).access_token;
    for (const encoding of ['gzip', 'deflate', 'br']) {
      const api = await fetch(`${c.server.url}/api/employee/create`, {
        method: 'POST',
        headers: { ...bearer(token), 'Content-Type': 'application/json', 'Content-Encoding': encoding },
        body: 'not compressed at all',
      });
      assert.is(api.status, 400, encoding);
      assert.match(api.headers.get('content-type') ?? '', /application\/problem\+json/);
      assert.match(((await api.json()) as { detail: string }).detail, new RegExp(`not valid ${encoding}`));
      const oauth = await fetch(`${c.server.url}/oauth/token`, {
        method: 'POST',
        headers: {
          Authorization: client(),
          'Content-Type': 'application/x-www-form-urlencoded',
          'Content-Encoding': encoding,
        },
        body: 'garbage',
      });
      assert.is(oauth.status, 400, encoding);
      assert.is(((await oauth.json()) as { error: string }).error, 'invalid_request');
    }
    const errors = c.logs.filter((line) => (JSON.parse(line) as { level: number }).level >= 50);
    assert.equal(errors, [], "a client's broken body was logged as a server error");
  },
);

s('an OAuth form that decodes, names its type in any case, or is too large', async (c) => {
  const form = new URLSearchParams({ grant_type: 'password', ...USERS.john }).toString();
  for (const [encoding, body] of [
    ['gzip', gzipSync(form)],
    ['br', brotliCompressSync(form)],
  ] as const) {
    const res = await fetch(`${c.server.url}/oauth/token`, {
      method: 'POST',
      headers: {
        Authorization: client(),
        'Content-Type': 'application/x-www-form-urlencoded',
        'Content-Encoding': encoding,
      },
      body,
    });
    assert.is(res.status, 200, encoding);
  }
  const typed = await fetch(`${c.server.url}/oauth/token`, {
    method: 'POST',
    headers: { Authorization: client(), 'Content-Type': 'Application/X-WWW-Form-Urlencoded; charset=UTF-8' },
    body: form,
  });
  assert.is(typed.status, 200, 'a media type compares case-insensitively, with its parameters');
  const large = await fetch(`${c.server.url}/oauth/token`, {
    method: 'POST',
    headers: { Authorization: client(), 'Content-Type': 'application/x-www-form-urlencoded' },
    body: `${form}&pad=${'x'.repeat(loadConfig({}).server.maxBodyBytes)}`,
  });
  assert.is(large.status, 413);
  assert.is(((await large.json()) as { error: string }).error, 'invalid_request');
});

s('a body that does decode (gzip, br) is served as usual', async (c) => {
  const token = (await login(c.server.url, undefined, undefined, client())).access_token;
  const json = JSON.stringify({ name: 'Zip Ped', dateOfBirth: '1990-01-01' });
  for (const [encoding, body] of [
    ['gzip', gzipSync(json)],
    ['br', brotliCompressSync(json)],
  ] as const) {
    const res = await fetch(`${c.server.url}/api/employee/create`, {
      method: 'POST',
      headers: { ...bearer(token), 'Content-Type': 'application/json', 'Content-Encoding': encoding },
      body,
    });
    assert.is(res.status, 201, encoding);
  }
});

s(
  'a client secret longer than 72 bytes → 401 invalid_client, though its first 72 bytes are the secret (Basic and body)',
  async (c) => {
    const form = { grant_type: 'password', username: 'john.doe', password: 'john-password' };
    assert.is((await postToken(c.server.url, form, { Authorization: client() })).status, 200);
    const longer = await postToken(c.server.url, form, { Authorization: basic('troupe-client', `${LONG_SECRET}x`) });
    assert.is(longer.status, 401);
    assert.match(longer.headers.get('www-authenticate') ?? '', /^Basic realm=/);
    assert.equal(await longer.json(), {
      error: 'invalid_client',
      error_description: 'Client secrets longer than 72 bytes are not accepted',
    });
    const inBody = await postToken(
      c.server.url,
      { ...form, client_id: 'troupe-client', client_secret: `${LONG_SECRET}€` },
      {},
    );
    assert.is(inBody.status, 401);
  },
);

s('npm run hash refuses a secret longer than 72 bytes, so none can be configured', () => {
  const run = spawnSync(process.execPath, ['scripts/hash.ts', '--cost', '4'], {
    input: `${LONG_SECRET}x\n`,
    encoding: 'utf8',
  });
  assert.is(run.status, 2);
  assert.match(run.stderr, /refused: BCrypt uses only the first 72 bytes/);
  assert.is(run.stdout, '');
  const ok = spawnSync(process.execPath, ['scripts/hash.ts', '--cost', '4'], {
    input: `${LONG_SECRET}\n`,
    encoding: 'utf8',
  });
  assert.ok(bcrypt.compareSync(LONG_SECRET, ok.stdout.trim()));
});

/** A token like ours, signed with our key, whose lifetime (exp - iat) is `lifetime` seconds. */
const tokenLiving = (c: Ctx, lifetime: number): Promise<string> => forgeAccessToken(c.server.config, KEY, lifetime);

s(
  'a token living longer than the configured validity (plus the skew) → 401 invalid_token: this server never issued it',
  async (c) => {
    const validity = c.server.config.security.jwt.accessTokenValidity;
    assert.is(
      (await fetch(`${c.server.url}/app/listAll`, { headers: bearer(await tokenLiving(c, validity)) })).status,
      200,
    );
    const res = await fetch(`${c.server.url}/app/listAll`, { headers: bearer(await tokenLiving(c, validity + 31)) });
    assert.is(res.status, 401);
    assert.match(
      res.headers.get('www-authenticate') ?? '',
      /error="invalid_token", error_description="Access token lifetime is longer than this server issues"/,
    );
    const year = await fetch(`${c.server.url}/app/listAll`, { headers: bearer(await tokenLiving(c, 365 * 86_400)) });
    assert.is(year.status, 401);
  },
);

s('a dripping body is cut off at server.request-timeout-ms (408, connection closed)', async (c) => {
  const { hostname, port } = new URL(c.server.url);
  const token = (await login(c.server.url, undefined, undefined, client())).access_token;
  const started = Date.now();
  const answer = await new Promise<string>((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => {
      socket.write(
        `POST /api/employee/create HTTP/1.1\r\nHost: ${hostname}\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{`,
      );
      const drip = setInterval(() => {
        if (!socket.destroyed) socket.write(' ');
      }, 100);
      socket.on('close', () => clearInterval(drip));
    });
    let data = '';
    socket.on('data', (chunk: Buffer) => {
      data += chunk.toString();
    });
    socket.on('close', () => resolve(data));
    socket.on('error', reject);
    setTimeout(() => {
      socket.destroy();
      reject(new Error('the dripping request was never cut off'));
    }, 8000).unref();
  });
  assert.match(answer, /^HTTP\/1\.1 408/, answer.slice(0, 200));
  assert.ok(Date.now() - started < 4000, `cut off after ${Date.now() - started} ms`);
});

s(
  'headers that trickle in are cut off at server.headers-timeout-ms; an idle kept-alive connection closes',
  async (c) => {
    const { hostname, port } = new URL(c.server.url);
    const watch = (first: string, drip: string | undefined): Promise<{ data: string; ms: number }> =>
      new Promise((resolve, reject) => {
        const started = Date.now();
        const socket = connect(Number(port), hostname, () => {
          socket.write(first);
          if (drip !== undefined) {
            const timer = setInterval(() => {
              if (!socket.destroyed) socket.write(drip);
            }, 100);
            socket.on('close', () => clearInterval(timer));
          }
        });
        let data = '';
        socket.on('data', (chunk: Buffer) => {
          data += chunk.toString();
        });
        socket.on('close', () => resolve({ data, ms: Date.now() - started }));
        socket.on('error', reject);
        setTimeout(() => {
          socket.destroy();
          reject(new Error('the connection was never closed'));
        }, 8000).unref();
      });
    const headers = await watch(`GET /health HTTP/1.1\r\nHost: ${hostname}\r\n`, 'X-Slow: 1\r\n');
    assert.match(headers.data, /^HTTP\/1\.1 408/);
    assert.ok(headers.ms < 3000, `cut off after ${headers.ms} ms`);
    const idle = await watch(`GET /health HTTP/1.1\r\nHost: ${hostname}\r\n\r\n`, undefined);
    assert.match(idle.data, /^HTTP\/1\.1 200/);
    assert.ok(idle.ms < 3000, `an idle kept-alive connection stayed open ${idle.ms} ms`);
  },
);

s('introspection of a token whose user no longer exists → active: false (access and refresh tokens)', async (c) => {
  const db = new Database(join(c.server.dataDir, 'troupe.db'), { timeout: 5000 });
  try {
    db.prepare("insert into users (username, password) values ('temp', ?)").run(bcrypt.hashSync('temp-password', 4));
    const tokens = await login(c.server.url, { username: 'temp', password: 'temp-password' }, undefined, client());
    const introspect = async (token: string): Promise<boolean> =>
      (
        (await (
          await fetch(`${c.server.url}/oauth/introspect`, {
            method: 'POST',
            headers: { Authorization: client(), 'Content-Type': 'application/x-www-form-urlencoded' },
            body: new URLSearchParams({ token }).toString(),
          })
        ).json()) as { active: boolean }
      ).active;
    assert.ok(await introspect(tokens.access_token));
    assert.ok(await introspect(tokens.refresh_token ?? ''));
    db.prepare("delete from users where username = 'temp'").run();
    assert.is(await introspect(tokens.access_token), false);
    assert.is(await introspect(tokens.refresh_token ?? ''), false);
  } finally {
    db.close();
  }
});

s('RFC 8414 metadata claims only what the server supports', async (c) => {
  const meta = (await (await fetch(`${c.server.url}/.well-known/oauth-authorization-server`)).json()) as Record<
    string,
    unknown
  >;
  assert.is(meta['token_endpoint_auth_signing_alg_values_supported'], undefined, 'no JWT client authentication here');
  assert.equal(meta['token_endpoint_auth_methods_supported'], ['client_secret_basic', 'client_secret_post']);
  assert.equal(meta['grant_types_supported'], ['password', 'refresh_token', 'authorization_code']);
  assert.equal(
    Object.keys(meta).filter((k) => k.includes('signing_alg')),
    [],
  );
});

s.run();

/** The slow-client bounds are configuration, validated like every key. */
const config = suite('hardening: slow-client bounds in the configuration');
config(
  'defaults 30 s / 10 s / 5 s; SERVER_REQUEST_TIMEOUT_MS sets the request timeout; headers above it are refused',
  () => {
    const d = loadConfig({});
    assert.equal(
      [d.server.requestTimeoutMs, d.server.headersTimeoutMs, d.server.keepAliveTimeoutMs],
      [30_000, 10_000, 5_000],
    );
    assert.is(loadConfig({ env: { SERVER_REQUEST_TIMEOUT_MS: '12000' } }).server.requestTimeoutMs, 12_000);
    assert.throws(
      () => loadConfig({ properties: { 'server.request-timeout-ms': '5000', 'server.headers-timeout-ms': '6000' } }),
      /server\.headers-timeout-ms: must not exceed/,
    );
  },
);
config.run();

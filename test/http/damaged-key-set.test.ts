/**
 * A damaged record of the signing-key set (a sealed key that does not decrypt, a JWK that does not
 * parse or lacks a field, an algorithm that is none or does not fit, a time that is not one, no
 * kid), written into `troupe.db` by another connection as a hand or a failing disk would. A
 * running server sees it on its next request: every token operation answers 503 with Retry-After
 * in its route's error shape, never 500, /ready is 503 naming the key store, and the problem is
 * logged once; once the record is restored, everything works again, and nothing was spent
 * meanwhile. A server started on such a store does not start: one line on stderr, exit code 1.
 */
import { spawnSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import Database from 'better-sqlite3';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { codeFor, pkce } from '../helpers/authorize.ts';
import { clientsFile, SERVICE, WEB } from '../helpers/clients.ts';
import { conformance, type OpenApiDoc } from '../helpers/openapi-conformance.ts';
import { startTestServer, tempDir, type TestServer } from '../helpers/server.ts';
import { basic, bearer, login, USERS, type TokenResponse } from '../helpers/tokens.ts';

const ENCRYPTION_SECRET = 'an-encryption-secret-for-damage-tests';

interface Row {
  kid: string;
  alg: string;
  use: string;
  secret: string;
  created_at: unknown;
  activates_at: unknown;
  removed_at: unknown;
  created_by: string;
  removed_by: unknown;
}

/** A JWK of a private key with its private part left out: a field missing. */
const withoutD = (): string => {
  const { d: _d, ...rest } = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'jwk' });
  return JSON.stringify(rest);
};

/**
 * A character of a sealed key's ciphertext replaced: it no longer decrypts. Not the last one, whose
 * low bits may be padding that decodes to the same bytes.
 */
const tampered = (sealed: string): string => {
  const at = sealed.length - 10;
  return `${sealed.slice(0, at)}${sealed[at] === 'A' ? 'Q' : 'A'}${sealed.slice(at + 1)}`;
};

/** Each damage: the change to the one record, and what /ready and the log say (`KID` is its kid). */
const DAMAGES: readonly { name: string; set: (r: Row) => Partial<Row>; says: string }[] = [
  {
    name: 'a sealed key that does not decrypt',
    set: (r) => ({ secret: tampered(r.secret) }),
    says: 'signing key KID cannot be decrypted: .*or take the key out: npm run keys -- retire KID',
  },
  {
    name: 'a JWK that does not parse',
    set: () => ({ secret: '{"kty":"EC","crv":"P-256",' }),
    says: 'signing key KID cannot be used: its private key is not JSON; restore its record from a backup, or take the key out: npm run keys -- retire KID',
  },
  {
    name: 'a JWK with a field missing',
    set: () => ({ secret: withoutD() }),
    says: 'signing key KID cannot be used: its private key is not a usable JWK; .*npm run keys -- retire KID',
  },
  {
    name: 'an algorithm none of the set has',
    set: () => ({ alg: 'none' }),
    says: 'signing key KID cannot be used: its record is damaged \\(alg is not an algorithm of the set\\); restore the record from a backup',
  },
  {
    name: 'an algorithm that does not fit the key',
    set: () => ({ alg: 'RS256' }),
    says: 'signing key KID cannot be used: its algorithm RS256 does not fit its key \\(an EC key on prime256v1\\); .*retire KID',
  },
  {
    name: 'an activation time that is not a time',
    set: () => ({ activates_at: 'soon' }),
    says: 'signing key KID cannot be used: its record is damaged \\(activatesAt is not a time\\)',
  },
  {
    name: 'no kid',
    set: () => ({ kid: '' }),
    says: 'a record of the signing-key set is damaged \\(it has no kid\\); restore the set from a backup',
  },
];

const db = (dir: string) => new Database(join(dir, 'troupe.db'));

/** The rows of a lineage of the set (the access keys unless named). */
function readRows(dir: string, use = 'access'): Row[] {
  const conn = db(dir);
  try {
    return conn.prepare('select * from signing_keys where use = ?').all(use) as Row[];
  } finally {
    conn.close();
  }
}

/** Replaces a lineage of the set with `rows`, as another process writes it (the server's data_version moves). */
function writeRows(dir: string, rows: readonly Row[], use = 'access'): void {
  const conn = db(dir);
  try {
    conn.transaction(() => {
      conn.prepare('delete from signing_keys where use = ?').run(use);
      const insert = conn.prepare(
        `insert into signing_keys (kid, alg, use, secret, created_at, activates_at, removed_at, created_by, removed_by)
         values (@kid, @alg, @use, @secret, @created_at, @activates_at, @removed_at, @created_by, @removed_by)`,
      );
      for (const row of rows) insert.run(row);
    })();
  } finally {
    conn.close();
  }
}

const ctx = { logs: [] as string[] } as {
  server: TestServer;
  logs: string[];
  original: Row[];
  check: ReturnType<typeof conformance>;
};
const t = suite('a damaged record of the signing-key set', ctx);

t.before(async () => {
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      ctx.logs.push(chunk.toString());
      done();
    },
  });
  ctx.server = await startTestServer(
    { 'security.keys.encryption-secret': ENCRYPTION_SECRET, 'security.clients-file': clientsFile() },
    undefined,
    sink,
  );
  ctx.check = conformance((await (await fetch(`${ctx.server.url}/openapi.json`)).json()) as OpenApiDoc);
  await login(ctx.server.url);
  ctx.original = readRows(ctx.server.dataDir);
  assert.is(ctx.original.length, 1);
  assert.match(ctx.original[0]?.secret ?? '', /^sealed:v1:/);
});
t.after(async () => ctx.server?.close());

const form: Record<string, string> = { 'Content-Type': 'application/x-www-form-urlencoded' };
const asClient = { ...form, Authorization: basic() };

/** What a client holds from before the damage: tokens (one already verified, so cached), an unspent code. */
async function holdings(url: string) {
  const tokens = await login(url);
  assert.is((await fetch(`${url}/app/listAll`, { headers: bearer(tokens.access_token) })).status, 200);
  const { verifier, challenge } = pkce();
  const code = await codeFor(url, WEB.id, WEB.redirect, challenge);
  return { tokens, code, verifier };
}

interface Operation {
  readonly method: 'GET' | 'POST';
  /** Its path template in the OpenAPI document. */
  readonly template: string;
  readonly send: () => Promise<Response>;
}

/** Every token operation, each as a client sends it. */
function operations(url: string, held: { tokens: TokenResponse; code: string; verifier: string }) {
  const { tokens, code, verifier } = held;
  const post = (path: string, body: Record<string, string>, headers: Record<string, string> = asClient): Operation => ({
    method: 'POST',
    template: path,
    send: () => fetch(`${url}${path}`, { method: 'POST', headers, body: new URLSearchParams(body).toString() }),
  });
  const get = (path: string, headers: Record<string, string> = {}, template = path): Operation => ({
    method: 'GET',
    template,
    send: () => fetch(`${url}${path}`, { headers }),
  });
  const codeGrant = {
    grant_type: 'authorization_code',
    code,
    redirect_uri: WEB.redirect,
    code_verifier: verifier,
    client_id: WEB.id,
    client_secret: WEB.secret,
  };
  return {
    'password grant': post('/oauth/token', { grant_type: 'password', ...USERS.john }),
    'refresh_token grant': post('/oauth/token', {
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token ?? '',
    }),
    'authorization_code grant': post('/oauth/token', codeGrant, form),
    'client_credentials grant': post(
      '/oauth/token',
      { grant_type: 'client_credentials' },
      { ...form, Authorization: basic(SERVICE.id, SERVICE.secret) },
    ),
    'introspection of an access token': post('/oauth/introspect', { token: tokens.access_token }),
    'introspection of a refresh token': post('/oauth/check_token', { token: tokens.refresh_token ?? '' }),
    'revocation of an access token': post('/oauth/revoke', { token: tokens.access_token }),
    'a bearer token on /app (verified before)': get('/app/listAll', bearer(tokens.access_token)),
    'a bearer token on /api': get(
      '/api/employee/0123456789abcdef01234567',
      bearer(tokens.access_token),
      '/api/employee/{id}',
    ),
    'the JWKS': get('/.well-known/jwks.json'),
    'the token key': get('/oauth/token_key'),
    'a bearer token on UserInfo': get('/userinfo', bearer(tokens.access_token)),
  } as const;
}

const OAUTH_SHAPED = /grant|introspection|revocation|token key|UserInfo/;

for (const damage of DAMAGES) {
  t(`${damage.name}: 503 with Retry-After everywhere, /ready names the key store; restored, all works`, async () => {
    const { url, dataDir } = ctx.server;
    const original = ctx.original[0] as Row;
    const says = new RegExp(damage.says.replaceAll('KID', original.kid));
    const held = await holdings(url);
    const logsBefore = ctx.logs.length;
    writeRows(dataDir, [{ ...original, ...damage.set(original) }]);

    for (const [name, { method, template, send }] of Object.entries(operations(url, held))) {
      for (let i = 0; i < 2; i++) {
        const res = await send();
        const text = await res.text();
        assert.equal(ctx.check({ method, template, status: res.status, headers: res.headers, text }), [], name);
        assert.is(res.status, 503, `${name}: ${res.status} ${text}`);
        assert.is(res.headers.get('retry-after'), '1', name);
        const body = JSON.parse(text) as Record<string, unknown>;
        if (OAUTH_SHAPED.test(name)) {
          assert.is(body['error'], 'temporarily_unavailable', name);
          assert.is(body['error_description'], 'The service is unavailable; try again shortly', name);
        } else {
          assert.is(body['type'], 'urn:problem:troupe:unavailable', name);
          assert.is(body['status'], 503, name);
        }
        assert.not.match(text, original.kid, `${name}: the body names no key`);
      }
    }
    const ready = await fetch(`${url}/ready`);
    assert.is(ready.status, 503);
    assert.is(ready.headers.get('retry-after'), '1');
    const { status, detail } = (await ready.json()) as { status: string; detail: string };
    assert.is(status, 'unavailable');
    assert.match(detail, /^key store "SQLite": /);
    assert.match(detail, says);

    const logged = ctx.logs.slice(logsBefore).filter((l) => l.includes('the signing-key set cannot be used'));
    assert.is(logged.length, 1, 'the problem is logged once, not once per request');
    assert.match(logged[0] ?? '', says);
    assert.is(logged[0]?.includes('"level":50'), true, 'at error level');

    writeRows(dataDir, ctx.original);
    assert.is((await fetch(`${url}/ready`)).status, 200);
    const again = operations(url, held);
    assert.is((await again['a bearer token on /app (verified before)'].send()).status, 200);
    assert.is((await again['password grant'].send()).status, 200);
    assert.is((await again['authorization_code grant'].send()).status, 200, 'the code was not spent by the 503');
    assert.is((await again['refresh_token grant'].send()).status, 200, 'the refresh token was not spent by the 503');
    assert.is((await again['the JWKS'].send()).status, 200);
    assert.ok(
      ctx.logs.slice(logsBefore).some((l) => l.includes('the signing-key set can be used again')),
      'the recovery is logged',
    );
  });
}

t(
  'a damaged id_token key: 503 on the token routes and the JWKS, /ready names it; access tokens still open /app',
  async () => {
    const { url, dataDir } = ctx.server;
    const [idKey] = readRows(dataDir, 'id_token') as [Row];
    assert.is(idKey.alg, 'RS256');
    const held = await holdings(url);
    writeRows(dataDir, [{ ...idKey, secret: '{"kty":"RSA",' }], 'id_token');
    const says = `signing key ${idKey.kid} cannot be used: its private key is not JSON; restore its record from a backup, or take the key out: npm run keys -- retire ${idKey.kid} --use id_token`;
    const ops = operations(url, held);
    for (const name of ['password grant', 'authorization_code grant', 'refresh_token grant', 'the JWKS'] as const) {
      const res = await ops[name].send();
      assert.is(res.status, 503, `${name}: ${res.status}`);
      assert.not.match(await res.text(), idKey.kid, `${name}: the body names no key`);
    }
    assert.is((await ops['a bearer token on /app (verified before)'].send()).status, 200);
    assert.is((await ops['the token key'].send()).status, 200, 'the access key is shown');
    const ready = await fetch(`${url}/ready`);
    assert.is(ready.status, 503);
    assert.ok(((await ready.json()) as { detail: string }).detail.includes(says));
    writeRows(dataDir, [idKey], 'id_token');
    assert.is((await fetch(`${url}/ready`)).status, 200);
    assert.is((await ops['authorization_code grant'].send()).status, 200, 'the code was not spent by the 503');
    assert.is((await ops['refresh_token grant'].send()).status, 200, 'the refresh token was not spent by the 503');
  },
);

t('no key material reaches the logs', () => {
  const logs = ctx.logs.join('');
  assert.not.match(logs, /sealed:v1|"d":|an-encryption-secret/);
});

t.run();

const restart = suite('a server started on a damaged key set');

/** `npm start`'s process on `dir`: its exit code and what it printed. */
function start(dir: string, env: Record<string, string> = {}) {
  const run = spawnSync(process.execPath, ['src/main.ts'], {
    encoding: 'utf8',
    timeout: 30_000,
    env: {
      ...process.env,
      CONFIG_FILE: '/dev/null',
      MONGODB_URI: '',
      PORT: '0',
      DATA_DIR: dir,
      LOGGING_LEVEL: 'info',
      SECURITY_KEYS_ENCRYPTION_SECRET: ENCRYPTION_SECRET,
      ...env,
    },
  });
  return { code: run.status, signal: run.signal, out: run.stdout, err: run.stderr };
}

restart('does not start: one line on stderr naming the key and what to do, exit code 1, no stack', async () => {
  const dir = tempDir('troupe-damaged-keys-');
  try {
    const server = await startTestServer({ 'security.keys.encryption-secret': ENCRYPTION_SECRET }, dir);
    await server.stop();
    const [original] = readRows(dir) as [Row];
    for (const damage of DAMAGES.filter((d) => /decrypt|parse|not a time|no kid/.test(d.name))) {
      writeRows(dir, [{ ...original, ...damage.set(original) }]);
      const run = start(dir);
      assert.is(run.code, 1, `${damage.name}: ${run.signal ?? ''} ${run.err}`);
      const lines = run.err.split('\n').filter(Boolean);
      assert.is(lines.length, 1, `${damage.name}: ${run.err}`);
      assert.match(lines[0] ?? '', /^troupe cannot start: /);
      assert.match(lines[0] ?? '', new RegExp(damage.says.replaceAll('KID', original.kid)));
      assert.not.match(`${run.out}${run.err}`, /\n\s+at /, 'no stack');
      assert.not.match(run.out, /troupe listening/);
    }
    writeRows(dir, [original]);
    const wrongSecret = start(dir, { SECURITY_KEYS_ENCRYPTION_SECRET: 'another-encryption-secret-0123' });
    assert.is(wrongSecret.code, 1);
    assert.match(wrongSecret.err, new RegExp(`^troupe cannot start: signing key ${original.kid} cannot be decrypted`));
    assert.is(wrongSecret.err.split('\n').filter(Boolean).length, 1, wrongSecret.err);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

restart.run();

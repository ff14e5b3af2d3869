/**
 * At rest and on the wire: the data directory is created for its owner alone (0700) and the
 * database files, which hold every BCrypt hash, are 0600, also when an older install left them
 * wider; authenticated answers carry `Cache-Control: no-store`, and every answer
 * `X-Content-Type-Options: nosniff`.
 */
import { chmodSync, existsSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestServer, tempDir } from '../helpers/server.ts';
import { bearer, login } from '../helpers/tokens.ts';

const modeOf = (path: string): number => statSync(path).mode & 0o777;
const DB_FILES = ['troupe.db', 'troupe.db-wal', 'troupe.db-shm'];

const t = suite('HTTP: at rest and on the wire');

t('a data directory created at start is 0700; the database files, with the key set, are 0600', async () => {
  const parent = tempDir('troupe-rest-');
  const dataDir = join(parent, 'data');
  const server = await startTestServer({}, dataDir);
  try {
    await login(server.url); // a write: the WAL exists
    assert.is(modeOf(dataDir).toString(8), '700');
    for (const f of DB_FILES) {
      assert.ok(existsSync(join(dataDir, f)), `${f} exists`);
      assert.is(modeOf(join(dataDir, f)).toString(8), '600', f);
    }
    assert.not.ok(existsSync(join(dataDir, 'signing.key')), 'the signing keys live in troupe.db');
  } finally {
    await server.stop();
    rmSync(parent, { recursive: true, force: true });
  }
});

t('database files left 0644 by an older install are narrowed to 0600 at start', async () => {
  const dataDir = tempDir('troupe-rest-');
  const first = await startTestServer({}, dataDir);
  await login(first.url);
  for (const f of DB_FILES) if (existsSync(join(dataDir, f))) chmodSync(join(dataDir, f), 0o644);
  const second = await startTestServer({}, dataDir);
  try {
    for (const f of DB_FILES)
      if (existsSync(join(dataDir, f))) assert.is(modeOf(join(dataDir, f)).toString(8), '600', f);
  } finally {
    await second.stop();
    await first.close();
  }
});

t('authenticated JSON answers: no-store and nosniff; public ones nosniff, cacheable as their route says', async () => {
  const server = await startTestServer();
  try {
    const { access_token: token } = await login(server.url);
    for (const path of ['/app/listAll', '/api/users/activity?userId=000000000000000000000000']) {
      const res = await fetch(`${server.url}${path}`, { headers: bearer(token) });
      assert.is(res.headers.get('cache-control'), 'no-store', path);
      assert.is(res.headers.get('x-content-type-options'), 'nosniff', path);
    }
    const refused = await fetch(`${server.url}/app/listAll`, { headers: bearer('not-a-token') });
    assert.is(refused.status, 401);
    assert.is(refused.headers.get('cache-control'), 'no-store');
    const health = await fetch(`${server.url}/health`);
    assert.is(health.headers.get('x-content-type-options'), 'nosniff');
    assert.is(health.headers.get('cache-control'), null);
    const jwks = await fetch(`${server.url}/.well-known/jwks.json`, { headers: bearer(token) });
    assert.is(jwks.headers.get('cache-control'), 'public, max-age=300', 'a route that says otherwise');
  } finally {
    await server.close();
  }
});

t.run();

/**
 * Keys fixed by configuration: `security.signing-key` signs, `security.previous-signing-keys` keep
 * verifying the tokens of keys rotated out by configuration (an asymmetric one stays published, a
 * MAC one never is), and anything else is refused. And a key set in a MongoDB that cannot be
 * reached: the process starts, and nothing is signed or published until it can read the set. And
 * the upgrade of a data directory whose MAC key an older version generated.
 */
import { spawnSync } from 'node:child_process';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { decodeProtectedHeader } from 'jose';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { closedPort } from '../helpers/ports.ts';
import { serverSuite, startTestServer, tempDir } from '../helpers/server.ts';
import { bearer, forgeAccessToken, login, postToken, USERS } from '../helpers/tokens.ts';

const pem = (type: 'ec' | 'rsa'): string =>
  (type === 'ec'
    ? generateKeyPairSync('ec', { namedCurve: 'P-256' })
    : generateKeyPairSync('rsa', { modulusLength: 2048 })
  ).privateKey
    .export({ type: 'pkcs8', format: 'pem' })
    .toString();

const ACTIVE = pem('ec');
const PREVIOUS_MAC = 'a-previous-mac-signing-key-0123456789abcdef';
const PREVIOUS_RSA = pem('rsa');
const t = serverSuite('configured keys: security.signing-key with security.previous-signing-keys', {
  'security.signing-key': ACTIVE,
  'security.previous-signing-keys': `${PREVIOUS_MAC},${PREVIOUS_RSA.replaceAll('\n', '\\n')}`,
});

t(
  'the configured EC key signs; the JWKS lists it, the previous RSA key and the id_token key, never the MAC key',
  async ({ server }) => {
    const token = (await login(server.url)).access_token;
    const header = decodeProtectedHeader(token);
    assert.is(header.alg, 'ES256');
    const jwks = (await (await fetch(`${server.url}/.well-known/jwks.json`)).json()) as {
      keys: Record<string, string>[];
    };
    assert.equal(
      jwks.keys.map((k) => [k['kty'], k['alg']]),
      [
        ['EC', 'ES256'],
        ['RSA', 'RS256'],
        ['RSA', 'RS256'],
      ],
    );
    assert.is(jwks.keys[0]?.['kid'], header.kid);
    assert.is.not(
      jwks.keys[2]?.['kid'],
      jwks.keys[1]?.['kid'],
      'the id_token key of the store, beside the previous key',
    );
    assert.ok(
      jwks.keys.every((k) => k['d'] === undefined && k['k'] === undefined),
      'a private part is published',
    );
    const tokenKey = (await (await fetch(`${server.url}/oauth/token_key`)).json()) as { alg: string };
    assert.is(tokenKey.alg, 'SHA256withECDSA');
  },
);

t('a token of a previous key verifies; one of a key never configured is refused', async ({ server }) => {
  const previous = await forgeAccessToken(server.config, PREVIOUS_MAC);
  assert.is((await fetch(`${server.url}/app/listAll`, { headers: bearer(previous) })).status, 200);
  const stranger = await forgeAccessToken(server.config, 'a-key-this-server-never-had-0123456789');
  const res = await fetch(`${server.url}/app/listAll`, { headers: bearer(stranger) });
  assert.is(res.status, 401);
  assert.match(res.headers.get('www-authenticate') ?? '', /Access token key is unknown or retired/);
});

t.run();

const mongo = serverSuite('key set in a MongoDB that cannot be reached', {});
mongo.before(async (c) => {
  await c.server.close();
  const uri = `mongodb://127.0.0.1:${await closedPort()}/troupe?serverSelectionTimeoutMS=300`;
  c.server = await startTestServer({ 'mongodb.uri': uri });
});

mongo('the process starts; logins, the JWKS and bearer tokens fail closed with 503', async ({ server }) => {
  assert.is((await postToken(server.url, { grant_type: 'password', ...USERS.john })).status, 503);
  assert.is((await fetch(`${server.url}/.well-known/jwks.json`)).status, 503);
  const token = await forgeAccessToken(server.config, 'a-key-this-server-never-had-0123456789');
  assert.is((await fetch(`${server.url}/app/listAll`, { headers: bearer(token) })).status, 503);
});

mongo.run();

const upgrade = suite('upgrade: a data directory with the MAC key an older version generated');

upgrade('its key stays active (tokens issued before still verify); a rotation moves to ES256', async () => {
  const dir = tempDir();
  const secret = randomBytes(64).toString('base64url');
  writeFileSync(join(dir, 'signing.key'), `${secret}\n`, { mode: 0o600 });
  const server = await startTestServer({}, dir);
  try {
    const before = await forgeAccessToken(server.config, secret);
    assert.is((await fetch(`${server.url}/app/listAll`, { headers: bearer(before) })).status, 200);
    const first = (await login(server.url)).access_token;
    assert.is(decodeProtectedHeader(first).alg, 'HS256');
    assert.is(decodeProtectedHeader(first).kid, decodeProtectedHeader(before).kid);
    const published = async () =>
      ((await (await fetch(`${server.url}/.well-known/jwks.json`)).json()) as { keys: { kid: string; alg: string }[] })
        .keys;
    const [idToken, ...macKeys] = await published();
    assert.is(idToken?.alg, 'RS256', 'the id_token key alone');
    assert.equal(macKeys, [], 'the MAC key is never published');
    const rotate = spawnSync(process.execPath, ['scripts/keys.ts', 'rotate'], {
      encoding: 'utf8',
      env: {
        ...process.env,
        CONFIG_FILE: '/dev/null',
        MONGODB_URI: '',
        DATA_DIR: dir,
        SECURITY_KEYS_PUBLISH_AHEAD_SECONDS: '0',
      },
    });
    assert.is(rotate.status, 0, rotate.stderr);
    // With no publish-ahead the new key signs from the next second at the latest.
    let after = (await login(server.url)).access_token;
    for (let i = 0; i < 20 && decodeProtectedHeader(after).alg !== 'ES256'; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      after = (await login(server.url)).access_token;
    }
    assert.is(decodeProtectedHeader(after).alg, 'ES256');
    for (const token of [before, first, after])
      assert.is((await fetch(`${server.url}/app/listAll`, { headers: bearer(token) })).status, 200);
    assert.equal(
      (await published()).map((k) => k.kid),
      [decodeProtectedHeader(after).kid, idToken?.kid],
      'the MAC key is never published',
    );
  } finally {
    await server.close();
  }
});

upgrade.run();

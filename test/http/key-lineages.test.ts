/**
 * The key set's two lineages over HTTP: the JWKS publishes the access-token keys and the id_token
 * keys; an access token is verified only with a key of the access lineage, so a token signed with
 * an id_token key is refused as a bearer token, however it is made; beside a configured MAC access
 * key, the id_token lineage has an RS256 key of its own.
 */
import { createPrivateKey } from 'node:crypto';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { decodeProtectedHeader, SignJWT } from 'jose';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { serverSuite, startTestServer } from '../helpers/server.ts';
import { basic, bearer, login } from '../helpers/tokens.ts';

interface Jwk {
  readonly kid: string;
  readonly kty: string;
  readonly alg: string;
  readonly use: string;
}

const jwksOf = async (url: string): Promise<Jwk[]> =>
  ((await (await fetch(`${url}/.well-known/jwks.json`)).json()) as { keys: Jwk[] }).keys;

/** A lineage's stored keys in a data directory (unsealed: no encryption secret is configured here). */
function storedKeys(dataDir: string, use: string): { kid: string; alg: string; secret: string }[] {
  const db = new Database(join(dataDir, 'troupe.db'), { readonly: true });
  try {
    return db.prepare('select kid, alg, secret from signing_keys where use = ?').all(use) as {
      kid: string;
      alg: string;
      secret: string;
    }[];
  } finally {
    db.close();
  }
}

const t = serverSuite('the key set: an access lineage and an id_token lineage');

t('the JWKS publishes the access key and the id_token key (RS256); token_key shows the access key', async (c) => {
  const [access] = storedKeys(c.server.dataDir, 'access');
  const [idToken] = storedKeys(c.server.dataDir, 'id_token');
  assert.is(access?.alg, 'ES256');
  assert.is(idToken?.alg, 'RS256');
  const jwks = await jwksOf(c.server.url);
  assert.equal(
    jwks.map((k) => [k.kid, k.kty, k.alg, k.use]),
    [
      [access?.kid, 'EC', 'ES256', 'sig'],
      [idToken?.kid, 'RSA', 'RS256', 'sig'],
    ],
  );
  assert.is(decodeProtectedHeader((await login(c.server.url)).access_token).kid, access?.kid);
  const tokenKey = (await (await fetch(`${c.server.url}/oauth/token_key`)).json()) as { alg: string };
  assert.is(tokenKey.alg, 'SHA256withECDSA');
});

t(
  'a token signed with the id_token key, an access token in every other way, is refused as a bearer token',
  async (c) => {
    const [idToken] = storedKeys(c.server.dataDir, 'id_token');
    if (!idToken) return assert.unreachable('no id_token key');
    const real = JSON.parse(
      Buffer.from((await login(c.server.url)).access_token.split('.')[1] ?? '', 'base64url').toString(),
    ) as Record<string, unknown>;
    const key = createPrivateKey({ key: JSON.parse(idToken.secret) as Record<string, string>, format: 'jwk' });
    const forged = await new SignJWT(real)
      .setProtectedHeader({ alg: 'RS256', typ: 'at+jwt', kid: idToken.kid })
      .sign(key);
    const res = await fetch(`${c.server.url}/app/listAll`, { headers: bearer(forged) });
    assert.is(res.status, 401);
    assert.match(res.headers.get('www-authenticate') ?? '', /Access token key is unknown or retired/);
    const introspected = await fetch(`${c.server.url}/oauth/introspect`, {
      method: 'POST',
      headers: { Authorization: basic(), 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: forged }).toString(),
    });
    assert.equal(await introspected.json(), { active: false });
  },
);

t.run();

const configured = suite('the key set beside a configured MAC access key');

configured('the id_token lineage has an RS256 key of its own, the one key the JWKS publishes', async () => {
  const server = await startTestServer({ 'security.signing-key': 'a-configured-mac-key-of-32-bytes-or-more' });
  try {
    assert.equal(storedKeys(server.dataDir, 'access'), [], 'the access lineage is not used');
    const [idToken] = storedKeys(server.dataDir, 'id_token');
    assert.is(idToken?.alg, 'RS256');
    assert.equal(
      (await jwksOf(server.url)).map((k) => [k.kid, k.alg]),
      [[idToken?.kid, 'RS256']],
    );
    assert.is(decodeProtectedHeader((await login(server.url)).access_token).alg, 'HS256');
  } finally {
    await server.close();
  }
});

configured.run();

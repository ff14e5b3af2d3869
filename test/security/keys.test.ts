import { execFileSync, spawn } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ConfigError } from '../../src/config.ts';
import {
  loadConfiguredKey,
  loadPreviousKeys,
  pemHeader,
  readLegacyGeneratedKey,
} from '../../src/composition/configured-keys.ts';
import Database from 'better-sqlite3';
import { tempDir } from '../helpers/server.ts';

const ctx = { dir: '' };
const t = suite('security: signing keys', ctx);
t.before(() => {
  ctx.dir = tempDir('troupe-keys-');
});
t.after(() => rmSync(ctx.dir, { recursive: true, force: true }));

const load = (signingKey: string, encodingStrength: 256 | 384 | 512 = 256) =>
  loadConfiguredKey(signingKey, encodingStrength, 'security.signing-key');

async function refused(signingKey: string, pattern: RegExp): Promise<void> {
  try {
    await load(signingKey);
    assert.unreachable('expected a ConfigError');
  } catch (error) {
    assert.instance(error, ConfigError);
    assert.match((error as Error).message, /^Invalid configuration: security\.signing-key: /);
    assert.match((error as Error).message, pattern);
  }
}

function sshKeygen(type: 'rsa' | 'ed25519', name: string, extra: string[] = []): string {
  const file = join(ctx.dir, name);
  execFileSync('ssh-keygen', [
    '-q',
    '-t',
    type,
    ...(type === 'rsa' ? ['-b', '2048'] : []),
    '-N',
    '',
    '-f',
    file,
    ...extra,
  ]);
  return file;
}

t('a MAC secret gives HS256/384/512 by encoding strength, with a stable kid', async () => {
  const secret = 'm'.repeat(64);
  for (const strength of [256, 384, 512] as const) assert.is((await load(secret, strength)).alg, `HS${strength}`);
  assert.is((await load(secret)).kid, (await load(secret)).kid);
  assert.is.not((await load(secret)).kid, (await load('n'.repeat(64))).kid);
});

t('a MAC secret shorter than the hash size is refused', async () => {
  await refused('short-secret', /at least 32 bytes \(got 12\)/);
});

t("an older version's generated MAC key is read from the data dir, with the kid its tokens carry", async () => {
  assert.is(await readLegacyGeneratedKey(ctx.dir, 256), undefined);
  const secret = 'g'.repeat(86);
  writeFileSync(join(ctx.dir, 'signing.key'), `${secret}\n`, { mode: 0o600 });
  const legacy = await readLegacyGeneratedKey(ctx.dir, 256);
  assert.is(legacy?.alg, 'HS256');
  assert.is(legacy?.kid, (await load(secret)).kid);
  assert.is(legacy?.publicJwk, undefined, 'a MAC key is never published');
  rmSync(join(ctx.dir, 'signing.key'));
});

t(
  'no key configured: processes starting together on one data dir make one key set: one ES256 access key, one RS256 id_token key',
  async () => {
    const dir = tempDir('troupe-keys-race-');
    try {
      const runs = Array.from(
        { length: 4 },
        () =>
          new Promise<string>((resolve, reject) => {
            const child = spawn(process.execPath, ['test/fixtures/generated-key.ts'], {
              env: { ...process.env, MONGODB_URI: '', DATA_DIR: dir },
            });
            let out = '';
            let err = '';
            child.stdout.on('data', (c: Buffer) => {
              out += c.toString();
            });
            child.stderr.on('data', (c: Buffer) => {
              err += c.toString();
            });
            child.on('exit', (code) => (code === 0 ? resolve(out.trim()) : reject(new Error(err))));
          }),
      );
      const kids = await Promise.all(runs);
      assert.is(new Set(kids).size, 1, 'the processes signed with different keys');
      const db = new Database(join(dir, 'troupe.db'), { readonly: true });
      const rows = db.prepare('select kid, alg, use from signing_keys order by use').all() as {
        kid: string;
        alg: string;
        use: string;
      }[];
      db.close();
      assert.equal(
        rows.map((r) => [r.use, r.alg, r.kid]),
        [
          ['access', 'ES256', kids[0]?.split('\n')[0]],
          ['id_token', 'RS256', kids[0]?.split('\n')[1]],
        ],
      );
      for (const file of ['troupe.db', 'troupe.db-wal', 'troupe.db-shm'])
        assert.is(statSync(join(dir, file)).mode & 0o777, 0o600, `${file} is readable by others`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
);

t('an EC key (PEM SEC1 or PKCS#8) signs with the algorithm of its curve', async () => {
  for (const [curve, alg] of [
    ['P-256', 'ES256'],
    ['P-384', 'ES384'],
    ['P-521', 'ES512'],
  ] as const) {
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: curve });
    const sec1 = await load(privateKey.export({ type: 'sec1', format: 'pem' }).toString());
    const pkcs8 = await load(privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(), 512);
    assert.is(sec1.alg, alg);
    assert.is(pkcs8.alg, alg, 'the encoding strength does not change an EC key');
    assert.is(sec1.kid, pkcs8.kid);
    assert.is(sec1.publicJwk?.['crv'], curve);
  }
});

t('security.previous-signing-keys: a comma-separated list, each as security.signing-key takes it', async () => {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const file = join(ctx.dir, 'previous.pem');
  writeFileSync(file, privateKey.export({ type: 'pkcs8', format: 'pem' }).toString());
  const keys = await loadPreviousKeys(` ${'p'.repeat(32)} , file:${file},`, 256);
  assert.equal(
    keys.map((k) => k.alg),
    ['HS256', 'RS256'],
  );
  assert.equal(await loadPreviousKeys(undefined, 256), []);
  try {
    await loadPreviousKeys('short', 256);
    assert.unreachable('a short MAC key was accepted');
  } catch (error) {
    assert.match((error as Error).message, /^Invalid configuration: security\.previous-signing-keys: /);
    assert.not.match((error as Error).message, /short/, 'the secret is echoed');
  }
});

t('RSA in PEM PKCS#8 and PKCS#1, inline and as file:PATH, gives RS256/384/512', async () => {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const pkcs8 = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  const pkcs1 = privateKey.export({ type: 'pkcs1', format: 'pem' }).toString();
  const file = join(ctx.dir, 'rsa.pem');
  writeFileSync(file, pkcs1);
  const a = await load(pkcs8);
  const b = await load(`file:${file}`, 384);
  const c = await load(pkcs8.replaceAll('\n', '\\n'), 512);
  assert.is(a.alg, 'RS256');
  assert.is(b.alg, 'RS384');
  assert.is(c.alg, 'RS512');
  assert.is(a.kid, b.kid, 'the kid is the thumbprint of the key, whatever its encoding');
  assert.equal(Object.keys(a.publicJwk ?? {}).sort(), ['alg', 'e', 'kid', 'kty', 'n', 'use']);
  assert.match(a.publicPem ?? '', /^-----BEGIN PUBLIC KEY-----/);
});

t('RSA in OpenSSH format (ssh-keygen default) is read', async () => {
  const file = sshKeygen('rsa', 'id_rsa');
  assert.ok(
    readFileSync(file, 'utf8').startsWith(pemHeader('OPENSSH PRIVATE KEY')),
    'ssh-keygen wrote the OpenSSH format',
  );
  const key = await load(`file:${file}`);
  assert.is(key.alg, 'RS256');
});

t('non-RSA, short RSA, encrypted and public keys are refused with a clear line', async () => {
  await refused(`file:${sshKeygen('ed25519', 'id_ed25519')}`, /must be an RSA or EC key/);
  const small = generateKeyPairSync('rsa', { modulusLength: 1024 })
    .privateKey.export({ type: 'pkcs8', format: 'pem' })
    .toString();
  await refused(small, /at least 2048 bits \(got 1024\)/);
  const encrypted = sshKeygen('rsa', 'id_rsa_enc');
  execFileSync('ssh-keygen', ['-q', '-p', '-P', '', '-N', 'passphrase', '-f', encrypted]);
  await refused(`file:${encrypted}`, /encrypted|not a readable/);
  await refused(readFileSync(`${encrypted}.pub`, 'utf8'), /public key cannot sign/);
  await refused('file:/nonexistent/key.pem', /cannot read \/nonexistent\/key\.pem \(ENOENT\)/);
});

t.run();

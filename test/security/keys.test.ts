import { execFileSync, spawn } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ConfigError } from '../../src/config.ts';
import { loadSigningKey, pemHeader } from '../../src/security/keys.ts';
import { tempDir } from '../helpers/server.ts';

const ctx = { dir: '' };
const t = suite('security: signing keys', ctx);
t.before(() => {
  ctx.dir = tempDir('troupe-keys-');
});
t.after(() => rmSync(ctx.dir, { recursive: true, force: true }));

const load = (signingKey: string | undefined, encodingStrength: 256 | 384 | 512 = 256) =>
  loadSigningKey({ signingKey, encodingStrength, dataDir: ctx.dir });

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

t('no key configured: one is generated into the data dir (0600) and reused', async () => {
  const generated: string[] = [];
  const first = await loadSigningKey({ signingKey: undefined, encodingStrength: 256, dataDir: ctx.dir }, (p) =>
    generated.push(p),
  );
  const second = await loadSigningKey({ signingKey: undefined, encodingStrength: 256, dataDir: ctx.dir }, (p) =>
    generated.push(p),
  );
  assert.equal(generated, [join(ctx.dir, 'signing.key')]);
  assert.is(first.kid, second.kid);
  assert.ok(first.generated);
});

t('processes starting together on one data dir generate one key, and all read it whole', async () => {
  const dir = tempDir('troupe-keys-race-');
  try {
    const runs = Array.from(
      { length: 6 },
      () =>
        new Promise<{ kid: string; generated: boolean }>((resolve, reject) => {
          const child = spawn(process.execPath, ['test/fixtures/generated-key.ts'], {
            env: { ...process.env, DATA_DIR: dir },
          });
          let out = '';
          let err = '';
          child.stdout.on('data', (c: Buffer) => {
            out += c.toString();
          });
          child.stderr.on('data', (c: Buffer) => {
            err += c.toString();
          });
          child.on('exit', (code) =>
            code === 0 ? resolve({ kid: out.trim(), generated: err.includes('generated') }) : reject(new Error(err)),
          );
        }),
    );
    const results = await Promise.all(runs);
    assert.is(new Set(results.map((r) => r.kid)).size, 1, 'the processes signed with different keys');
    assert.is(results.filter((r) => r.generated).length, 1);
    assert.equal(readdirSync(dir), ['signing.key'], 'a draft was left behind');
  } finally {
    rmSync(dir, { recursive: true, force: true });
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
  assert.is(a.kind, 'rsa');
  assert.is(a.alg, 'RS256');
  assert.is(b.alg, 'RS384');
  assert.is(c.alg, 'RS512');
  assert.is(a.kid, b.kid, 'the kid is the thumbprint of the key, whatever its encoding');
  if (a.kind === 'rsa') {
    assert.equal(Object.keys(a.publicJwk).sort(), ['alg', 'e', 'kid', 'kty', 'n', 'use']);
    assert.match(a.publicPem, /^-----BEGIN PUBLIC KEY-----/);
  }
});

t('RSA in OpenSSH format (ssh-keygen default) is read', async () => {
  const file = sshKeygen('rsa', 'id_rsa');
  assert.ok(
    readFileSync(file, 'utf8').startsWith(pemHeader('OPENSSH PRIVATE KEY')),
    'ssh-keygen wrote the OpenSSH format',
  );
  const key = await load(`file:${file}`);
  assert.is(key.kind, 'rsa');
  assert.is(key.alg, 'RS256');
});

t('non-RSA, short RSA, encrypted and public keys are refused with a clear line', async () => {
  await refused(`file:${sshKeygen('ed25519', 'id_ed25519')}`, /must be an RSA key/);
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

/**
 * The data directory's issuer (src/composition/issuer.ts): stored by the first start that listens,
 * kept after (a mismatch warned about), a configured one untouched.
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ConfigError, loadConfig } from '../src/config.ts';
import { createLogger } from '../src/logger.ts';
import { storeDataDirIssuer, withDataDirIssuer } from '../src/composition/issuer.ts';
import { startTroupe } from '../src/composition/troupe.ts';
import { closedPort } from './helpers/ports.ts';
import { tempDir } from './helpers/server.ts';

const t = suite('the issuer of a data directory');
const dirs: string[] = [];
t.after(() => {
  for (const dir of dirs) {
    chmodSync(dir, 0o700);
    rmSync(dir, { recursive: true, force: true });
  }
});

const configAt = (dir: string, port: number, issuer?: string) =>
  loadConfig({
    properties: {
      'data.dir': dir,
      'server.port': String(port),
      ...(issuer === undefined ? {} : { 'security.jwt.issuer': issuer }),
    },
  });
const fresh = (): string => {
  const dir = tempDir('troupe-issuer-');
  dirs.push(dir);
  return dir;
};
const capture = () => {
  const out = new PassThrough();
  let text = '';
  out.on('data', (chunk: Buffer) => (text += chunk.toString()));
  return { logger: createLogger('info', out), text: () => text };
};

t('unset: the first start stores its default once it listens, a start on another port serves that one', () => {
  const dir = fresh();
  const { logger } = capture();
  const loaded = configAt(dir, 8081);
  assert.is(withDataDirIssuer(loaded).security.jwt.issuer, 'http://127.0.0.1:8081');
  assert.not.ok(existsSync(join(dir, 'issuer')), 'reading stores nothing');
  storeDataDirIssuer(loaded, logger);
  assert.is(readFileSync(join(dir, 'issuer'), 'utf8'), 'http://127.0.0.1:8081\n');
  const second = withDataDirIssuer(configAt(dir, 8082));
  assert.is(second.security.jwt.issuer, 'http://127.0.0.1:8081');
  assert.ok(Object.isFrozen(second.security.jwt));
  assert.is(second.server.port, 8082, 'the rest as configured');
});

t('a stored issuer other than where this server listens: kept, with a warning naming both and the key', () => {
  const dir = fresh();
  writeFileSync(join(dir, 'issuer'), 'http://127.0.0.1:8080\n');
  const { logger, text } = capture();
  const loaded = configAt(dir, 9091);
  storeDataDirIssuer(loaded, logger);
  assert.is(readFileSync(join(dir, 'issuer'), 'utf8'), 'http://127.0.0.1:8080\n', 'the stored one stays');
  const line = JSON.parse(text().trim()) as Record<string, unknown>;
  assert.is(line['level'], 40, 'a warning');
  assert.is(line['issuer'], 'http://127.0.0.1:8080');
  assert.is(line['listening'], 'http://127.0.0.1:9091');
  assert.is(line['key'], 'security.jwt.issuer');
  assert.match(String(line['msg']), /http:\/\/127\.0\.0\.1:8080.*http:\/\/127\.0\.0\.1:9091.*security\.jwt\.issuer/);
});

t('the stored issuer where this server listens: no warning', () => {
  const dir = fresh();
  writeFileSync(join(dir, 'issuer'), 'http://127.0.0.1:8081\n');
  const { logger, text } = capture();
  storeDataDirIssuer(configAt(dir, 8081), logger);
  assert.is(text(), '');
});

t('an issuer on the unspecified address (server.host 0.0.0.0 or ::): stored, with a warning naming the key', () => {
  const lines = (dir: string, host: string, issuer?: string) => {
    const { logger, text } = capture();
    const loaded = loadConfig({
      properties: {
        'data.dir': dir,
        'server.host': host,
        ...(issuer === undefined ? {} : { 'security.jwt.issuer': issuer }),
      },
    });
    storeDataDirIssuer(loaded, logger);
    return text()
      .trim()
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Record<string, unknown>);
  };
  const unreachable = (l: Record<string, unknown>) => l['level'] === 40 && /no client reaches/.test(String(l['msg']));
  for (const [host, issuer] of [
    ['0.0.0.0', 'http://0.0.0.0:8080'],
    ['::', 'http://[::]:8080'],
  ] as const) {
    const dir = fresh();
    const first = lines(dir, host).find(unreachable);
    assert.ok(first, `a warning for ${host}`);
    assert.is(first['issuer'], issuer);
    assert.is(first['key'], 'security.jwt.issuer');
    assert.ok(lines(dir, '127.0.0.1').find(unreachable), 'and at every start that serves the stored one');
  }
  assert.not.ok(lines(fresh(), '127.0.0.1').find(unreachable), 'none for a loopback address');
  assert.equal(lines(fresh(), '0.0.0.0', 'https://auth.example'), [], 'none when security.jwt.issuer is set');
});

t('configured: served as it is, and nothing is stored', () => {
  const dir = fresh();
  const loaded = configAt(dir, 8081, 'https://auth.example');
  storeDataDirIssuer(loaded, capture().logger);
  assert.is(withDataDirIssuer(loaded).security.jwt.issuer, 'https://auth.example');
  assert.not.ok(existsSync(join(dir, 'issuer')));
});

t('a stored file that holds no issuer stops the start, naming the file and the key', () => {
  const dir = fresh();
  writeFileSync(join(dir, 'issuer'), '\n');
  try {
    withDataDirIssuer(configAt(dir, 8081));
    assert.unreachable('accepted an empty issuer file');
  } catch (error) {
    assert.instance(error, ConfigError);
    assert.match((error as Error).message, /issuer.*security\.jwt\.issuer/);
  }
});

t('a data directory that cannot be written: the default of this start, with a warning naming the key', () => {
  if (process.getuid?.() === 0) return; // root writes anyway
  const dir = fresh();
  const locked = join(dir, 'locked');
  mkdirSync(locked, { mode: 0o500 });
  dirs.push(locked);
  const { logger, text } = capture();
  const loaded = configAt(locked, 8083);
  storeDataDirIssuer(loaded, logger);
  assert.is(withDataDirIssuer(loaded).security.jwt.issuer, 'http://127.0.0.1:8083');
  assert.match(text(), /security\.jwt\.issuer/);
});

t('a start refused because its port is taken stores no issuer', async () => {
  const dir = fresh();
  const taken = createServer();
  await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
  const { port } = taken.address() as AddressInfo;
  try {
    const loaded = configAt(dir, port);
    const refused = await startTroupe(loaded, createLogger('silent')).then(
      () => undefined,
      (error: unknown) => error,
    );
    assert.instance(refused, ConfigError);
    assert.match((refused as Error).message, /in use/);
    assert.not.ok(existsSync(join(dir, 'issuer')), 'no issuer stored by a start that never listened');
  } finally {
    await new Promise((resolve) => taken.close(resolve));
  }
});

t('the first start that listens stores where it listens', async () => {
  const dir = fresh();
  const { logger } = capture();
  const port = await closedPort();
  const troupe = await startTroupe(configAt(dir, port), logger);
  try {
    assert.is(readFileSync(join(dir, 'issuer'), 'utf8'), `http://127.0.0.1:${port}\n`);
    const metadata = (await (await fetch(`${troupe.url}/.well-known/oauth-authorization-server`)).json()) as {
      issuer: string;
    };
    assert.is(metadata.issuer, `http://127.0.0.1:${port}`);
  } finally {
    await troupe.close();
  }
});

t.run();

/** The data directory's issuer (src/composition/issuer.ts): stored at the first start, kept after, a configured one untouched. */
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ConfigError, loadConfig } from '../src/config.ts';
import { createLogger } from '../src/logger.ts';
import { withDataDirIssuer } from '../src/composition/issuer.ts';
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

t('unset: the first start stores its default, a start on another port serves that one', () => {
  const dir = fresh();
  const { logger } = capture();
  const first = withDataDirIssuer(configAt(dir, 8081), logger);
  assert.is(first.security.jwt.issuer, 'http://127.0.0.1:8081');
  assert.is(readFileSync(join(dir, 'issuer'), 'utf8'), 'http://127.0.0.1:8081\n');
  const second = withDataDirIssuer(configAt(dir, 8082), logger);
  assert.is(second.security.jwt.issuer, 'http://127.0.0.1:8081');
  assert.ok(Object.isFrozen(second.security.jwt));
  assert.is(second.server.port, 8082, 'the rest as configured');
});

t('configured: served as it is, and nothing is stored', () => {
  const dir = fresh();
  const config = withDataDirIssuer(configAt(dir, 8081, 'https://auth.example'), capture().logger);
  assert.is(config.security.jwt.issuer, 'https://auth.example');
  assert.not.ok(existsSync(join(dir, 'issuer')));
});

t('a stored file that holds no issuer stops the start, naming the file and the key', () => {
  const dir = fresh();
  writeFileSync(join(dir, 'issuer'), '\n');
  try {
    withDataDirIssuer(configAt(dir, 8081), capture().logger);
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
  const config = withDataDirIssuer(configAt(locked, 8083), logger);
  assert.is(config.security.jwt.issuer, 'http://127.0.0.1:8083');
  assert.match(text(), /security\.jwt\.issuer/);
});

t.run();

import { availableParallelism } from 'node:os';
import { spawnSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createServer } from 'node:net';
import { once } from 'node:events';
import { CONFIG_KEYS, ConfigError, DEV_CLIENT_SECRET_HASH, loadConfig } from '../src/config.ts';
import { parseArgs, UsageError } from '../src/config/args.ts';
import { registeredClients } from '../src/composition/clients.ts';
import { tempDir } from './helpers/server.ts';

const t = suite('config');
const OTHER_HASH = '$2b$10$ou0V7wzSMMLBjrgg7HZmN.2c1W8VDzb41pZwpwGZFDFcWOOQ1NkEK';

function rejects(sources: Parameters<typeof loadConfig>[0], pattern: RegExp, production = false): string {
  try {
    loadConfig(sources, production);
  } catch (error) {
    assert.instance(error, ConfigError);
    assert.match((error as Error).message, pattern);
    return (error as Error).message;
  }
  throw new Error('expected a ConfigError');
}

t('every key is the path of its value: dotted segments, camel-cased', () => {
  const c = loadConfig(
    {
      properties: {
        'security.signing-key': 'k'.repeat(32),
        'security.previous-signing-keys': 'p'.repeat(32),
        'security.keys.encryption-secret': 'e'.repeat(32),
        'mongodb.uri': 'mongodb://127.0.0.1:1/x',
        'security.jwt.issuer': 'https://issuer.example',
        'management.port': '9090',
        'security.sign-in.logo': '/srv/brand/logo.png',
        'security.sign-in.support-url': 'https://help.example/',
        'security.sign-in.theme': '/srv/brand/theme',
      },
    },
    false,
  );
  for (const key of CONFIG_KEYS) {
    const path = key.split('.').map((s) => s.replace(/-([a-z])/g, (_, ch: string) => ch.toUpperCase()));
    let node: unknown = c;
    for (const segment of path) {
      assert.ok(
        typeof node === 'object' && node !== null && segment in node,
        `${key}: no ${path.join('.')} in the configuration`,
      );
      node = (node as Record<string, unknown>)[segment];
    }
    assert.is.not(node, undefined, key);
  }
  assert.is(c.actors.activity.idleMs, 60_000);
  assert.is(c.app.listAll.includePasswordHash, false);
  assert.is(c.data.sqlite.synchronous, 'FULL');
  assert.equal(c.server.cors.allowedOrigins, []);
});

t('development defaults', () => {
  const c = loadConfig();
  assert.is(c.server.host, '127.0.0.1');
  assert.is(c.server.port, 8080);
  assert.is(c.server.maxBodyBytes, 1024 * 1024);
  assert.is(c.security.encodingStrength, 256);
  assert.is(c.security.securityRealm, 'troupe');
  assert.is(c.security.jwt.clientId, 'troupe-client');
  assert.is(c.security.jwt.clientSecret, DEV_CLIENT_SECRET_HASH);
  assert.equal(c.security.jwt.grantType, ['password', 'refresh_token', 'authorization_code']);
  assert.is(c.security.jwt.resourceIds, 'troupe-api');
  assert.is(c.security.jwt.issuer, 'http://127.0.0.1:8080');
  assert.is(c.security.jwt.accessTokenValidity, 3600);
  assert.is(c.security.jwt.refreshTokenValidity, 2592000);
  assert.equal([...c.services], ['secured', 'employee', 'userdata']);
  assert.is(c.mongodb.uri, undefined);
  assert.ok(Object.isFrozen(c.security.jwt));
});

t('unset, the issuer is where the server listens: an IPv6 address in brackets', () => {
  const issuer = (host: string) => loadConfig({ properties: { 'server.host': host } }).security.jwt.issuer;
  assert.is(issuer('::1'), 'http://[::1]:8080');
  assert.is(issuer('::'), 'http://[::]:8080');
  assert.is(issuer('0.0.0.0'), 'http://0.0.0.0:8080');
  assert.is(issuer('localhost'), 'http://localhost:8080');
  for (const host of ['::1', '::']) assert.ok(URL.canParse(issuer(host)), `a URL for ${host}`);
});

t('application.properties overrides defaults, the environment overrides the file', () => {
  const dir = tempDir();
  const file = join(dir, 'application.properties');
  writeFileSync(
    file,
    '# Spring style\nsecurity.security-realm=file-realm\nserver.port: 9000\nsecurity.jwt.client-id = from-file\n',
  );
  const c = loadConfig({ file, env: { SECURITY_JWT_CLIENT_ID: 'from-env', PORT: '9100' } });
  assert.is(c.security.securityRealm, 'file-realm');
  assert.is(c.security.jwt.clientId, 'from-env');
  assert.is(c.server.port, 9100);
  rmSync(dir, { recursive: true });
});

t('relaxed binding reaches dotted and dashed keys; MONGODB_URI works', () => {
  const c = loadConfig({
    env: {
      SECURITY_JWT_ACCESS_TOKEN_VALIDITY: '60',
      MONGODB_URI: 'mongodb://localhost:27017/x',
      SERVICES: 'secured, employee',
      NODE_ENV: 'development',
    },
  });
  assert.is(c.security.jwt.accessTokenValidity, 60);
  assert.is(c.mongodb.uri, 'mongodb://localhost:27017/x');
  assert.equal([...c.services], ['secured', 'employee']);
});

t('mongodb.operation-timeout-ms: 5000 by default, MONGODB_OPERATION_TIMEOUT_MS sets it, below 100 ms refused', () => {
  assert.is(loadConfig({}).mongodb.operationTimeoutMs, 5000);
  assert.is(loadConfig({ env: { MONGODB_OPERATION_TIMEOUT_MS: '2500' } }).mongodb.operationTimeoutMs, 2500);
  rejects({ properties: { 'mongodb.operation-timeout-ms': '50' } }, /mongodb\.operation-timeout-ms/);
  rejects({ properties: { 'mongodb.operation-timeout-ms': 'soon' } }, /mongodb\.operation-timeout-ms/);
});

t(
  'the original client comes back to /docs with a code at the issuer, when it may (https:, or http: to loopback)',
  () => {
    const redirects = (properties: Record<string, string>) =>
      registeredClients(loadConfig({ properties }))[0]?.redirectUris;
    assert.equal(redirects({}), ['http://127.0.0.1:8080/docs/oauth2-redirect.html']);
    assert.equal(redirects({ 'security.jwt.issuer': 'https://api.example/' }), [
      'https://api.example/docs/oauth2-redirect.html',
    ]);
    assert.equal(redirects({ 'security.jwt.issuer': 'http://api.example' }), [], 'no code over http: to another host');
    assert.equal(redirects({ 'security.jwt.grant-type': 'password,refresh_token' }), [], 'without the grant');
    assert.equal(redirects({ 'server.host': '::1' }), ['http://[::1]:8080/docs/oauth2-redirect.html'], 'IPv6 loopback');
    assert.is(registeredClients(loadConfig())[0]?.consent, 'implicit', 'first-party: no consent page');
  },
);

t('the seed spelling refresh-token is accepted', () => {
  assert.equal(
    loadConfig({ properties: { 'security.jwt.grant-type': 'password,refresh-token' } }).security.jwt.grantType,
    ['password', 'refresh_token'],
  );
});

t('a bad value is one line naming the key', () => {
  const message = rejects({ env: { SECURITY_ENCODING_STRENGTH: '999' } }, /security\.encoding-strength/);
  assert.not.match(message, /\n/);
  rejects({ properties: { 'server.port': 'eighty' } }, /server\.port: must be a whole number/);
  rejects({ properties: { services: 'secured,payroll' } }, /services: unknown value\(s\) payroll/);
  rejects({ properties: { 'security.jwt.grant-type': 'client_credentials' } }, /security\.jwt\.grant-type/);
});

t('a bad secret is named but never echoed', () => {
  const message = rejects(
    { properties: { 'security.jwt.client-secret': 'plain-text-secret' } },
    /security\.jwt\.client-secret: must be a BCrypt hash/,
  );
  assert.not.match(message, /plain-text-secret/);
});

t('production refuses development secrets and disabled security', () => {
  const key = 'k'.repeat(64);
  rejects({}, /security\.jwt\.client-secret must be set/, true);
  rejects({ properties: { 'security.signing-key': key } }, /security\.jwt\.client-secret must be set/, true);
  rejects(
    {
      properties: {
        'security.signing-key': key,
        'security.jwt.client-secret': OTHER_HASH,
        'security.enabled': 'false',
      },
    },
    /security\.enabled=false is refused/,
    true,
  );
  const c = loadConfig({ properties: { 'security.signing-key': key, 'security.jwt.client-secret': OTHER_HASH } }, true);
  assert.is(c.production, true);
});

t('without a configured key the key set is used, also on MongoDB; there production needs the encryption secret', () => {
  const mongo = { MONGODB_URI: 'mongodb://db.example:27017/troupe', SECURITY_JWT_CLIENT_SECRET: OTHER_HASH };
  assert.is(loadConfig({ env: mongo }).security.signingKey, undefined);
  assert.is(loadConfig({ env: { SECURITY_JWT_CLIENT_SECRET: OTHER_HASH } }, true).security.signingKey, undefined);
  const why = rejects({ env: mongo }, /security\.keys\.encryption-secret must be set/, true);
  assert.is(why.split('\n').length, 1);
  const sealed = loadConfig({ env: { ...mongo, SECURITY_KEYS_ENCRYPTION_SECRET: 'a-long-enough-secret' } }, true);
  assert.is(sealed.security.keys.encryptionSecret, 'a-long-enough-secret');
  // A configured access key leaves the id_token keys in MongoDB all the same.
  rejects({ env: { ...mongo, SECURITY_SIGNING_KEY: 'k'.repeat(32) } }, /encryption-secret must be set/, true);
});

t('production without its secrets is one line naming each of them', () => {
  const why = rejects({ env: { MONGODB_URI: 'mongodb://db.example:27017/troupe' } }, /client-secret must be set/, true);
  assert.match(why, /security\.keys\.encryption-secret must be set/);
  assert.is(why.split('\n').length, 1);
});

t('a secret key takes its value from the file NAME_FILE names, without its trailing line break', () => {
  const dir = tempDir('troupe-secret-files-');
  try {
    const hash = join(dir, 'client-secret');
    writeFileSync(hash, `${OTHER_HASH}\n`);
    const sealing = join(dir, 'encryption-secret');
    writeFileSync(sealing, 'a-long-enough-secret\r\n');
    const env = {
      MONGODB_URI_FILE: join(dir, 'uri'),
      SECURITY_JWT_CLIENT_SECRET_FILE: hash,
      SECURITY_KEYS_ENCRYPTION_SECRET_FILE: sealing,
    };
    writeFileSync(env.MONGODB_URI_FILE, 'mongodb://db.example:27017/troupe');
    const warnings: string[] = [];
    const c = loadConfig({ env, onWarning: (m) => warnings.push(m) }, true);
    assert.is(
      c.security.jwt.clientSecret,
      loadConfig({ env: { SECURITY_JWT_CLIENT_SECRET: OTHER_HASH } }).security.jwt.clientSecret,
    );
    assert.is(c.security.keys.encryptionSecret, 'a-long-enough-secret');
    assert.is(c.mongodb.uri, 'mongodb://db.example:27017/troupe');
    assert.equal(warnings, [], 'a _FILE variable of a secret key is known');
    // Only the secret keys take a file: another key's _FILE variable is unknown, and sets nothing.
    const port = join(dir, 'port');
    writeFileSync(port, '9000');
    const other = loadConfig({ env: { SERVER_PORT_FILE: port }, onWarning: (m) => warnings.push(m) });
    assert.is(other.server.port, 8080);
    assert.match(warnings.join('\n'), /unknown configuration variable "SERVER_PORT_FILE"/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

t('a secret given both inline and as a file, or a file that cannot be read, is refused naming the variable', () => {
  const dir = tempDir('troupe-secret-files-');
  try {
    const file = join(dir, 'encryption-secret');
    writeFileSync(file, 'the-secret-in-the-file');
    const both = rejects(
      {
        env: { SECURITY_KEYS_ENCRYPTION_SECRET: 'the-secret-inline-here', SECURITY_KEYS_ENCRYPTION_SECRET_FILE: file },
      },
      /SECURITY_KEYS_ENCRYPTION_SECRET and SECURITY_KEYS_ENCRYPTION_SECRET_FILE are both set/,
    );
    assert.not.match(both, /the-secret-in/);
    const missing = rejects(
      { env: { SECURITY_JWT_CLIENT_SECRET_FILE: join(dir, 'absent') } },
      /^Invalid configuration: SECURITY_JWT_CLIENT_SECRET_FILE \(security\.jwt\.client-secret\): cannot read .*absent \(ENOENT\)$/,
    );
    assert.is(missing.split('\n').length, 1);
    // A directory where the file should be: unreadable as a file, and nothing of the folder is shown.
    const folder = rejects({ env: { SECURITY_SIGNING_KEY_FILE: dir } }, /SECURITY_SIGNING_KEY_FILE .*\(EISDIR\)$/);
    assert.not.match(folder, /the-secret-in-the-file/);
    // An empty file is an empty value, refused as such by the key's own rule.
    const empty = join(dir, 'empty');
    writeFileSync(empty, '\n');
    rejects({ env: { SECURITY_KEYS_ENCRYPTION_SECRET_FILE: empty } }, /encryption-secret: must be at least 16/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

t('security.keys.*: publish-ahead in seconds (default 600); a short encryption secret is refused unechoed', () => {
  assert.is(loadConfig().security.keys.publishAheadSeconds, 600);
  assert.is(loadConfig().security.keys.encryptionSecret, undefined);
  assert.is(loadConfig({ env: { SECURITY_KEYS_PUBLISH_AHEAD_SECONDS: '0' } }).security.keys.publishAheadSeconds, 0);
  rejects({ env: { SECURITY_KEYS_PUBLISH_AHEAD_SECONDS: '-1' } }, /publish-ahead-seconds: must be a whole number/);
  const message = rejects({ env: { SECURITY_KEYS_ENCRYPTION_SECRET: 'tiny-secret' } }, /at least 16 characters/);
  assert.not.match(message, /tiny-secret/);
  const mongo = { MONGODB_URI: 'mongodb://db.example:27017/troupe' };
  rejects(
    { env: { ...mongo, SECURITY_KEYS_PUBLISH_AHEAD_SECONDS: '1', SECURITY_REVOCATION_SYNC_MS: '1000' } },
    /publish-ahead-seconds: must exceed security\.revocation-sync-ms \(1000 ms\)/,
  );
  assert.is(
    loadConfig({ env: { ...mongo, SECURITY_KEYS_PUBLISH_AHEAD_SECONDS: '2' } }).security.keys.publishAheadSeconds,
    2,
  );
  rejects(
    { env: { SECURITY_PREVIOUS_SIGNING_KEYS: 'p'.repeat(32) } },
    /security\.previous-signing-keys: needs security\.signing-key/,
  );
});

t('server.workers: a number, or auto for the available cores; default 1', () => {
  assert.is(loadConfig({}).server.workers, 1);
  assert.is(loadConfig({ env: { SERVER_WORKERS: '3' } }).server.workers, 3);
  assert.is(loadConfig({ env: { SERVER_WORKERS: 'auto' } }).server.workers, availableParallelism());
  rejects({ env: { SERVER_WORKERS: '0' } }, /server\.workers: must be at least 1/);
  rejects({ env: { SERVER_WORKERS: 'many' } }, /server\.workers: must be a whole number from 1 to 256, or auto/);
});

t('start-up with a bad value exits 1 with one line naming the key', () => {
  const run = spawnSync(process.execPath, ['src/main.ts'], {
    encoding: 'utf8',
    timeout: 20_000,
    env: { ...process.env, SECURITY_ENCODING_STRENGTH: '999', CONFIG_FILE: '/dev/null' },
  });
  assert.is(run.status, 1);
  assert.is(run.stderr.trim().split('\n').length, 1);
  assert.match(run.stderr, /^Invalid configuration: security\.encoding-strength/);
});

t('server.headers-timeout-ms defaults to the smaller of 10 s and the request timeout', () => {
  assert.is(loadConfig({}).server.headersTimeoutMs, 10_000);
  const short = loadConfig({ properties: { 'server.request-timeout-ms': '4000' } }).server;
  assert.is(short.headersTimeoutMs, 4000);
  assert.is(loadConfig({ properties: { 'server.request-timeout-ms': '60000' } }).server.headersTimeoutMs, 10_000);
  rejects(
    { properties: { 'server.request-timeout-ms': '4000', 'server.headers-timeout-ms': '5000' } },
    /server\.headers-timeout-ms: must not exceed server\.request-timeout-ms \(4000\)/,
  );
});

t('the command line sets any key, --key=value or --key value, and wins over the environment', () => {
  const { properties } = parseArgs(['--server.port=9091', '--logging.level', 'warn', '--services=employee']);
  assert.equal(properties, { 'server.port': '9091', 'logging.level': 'warn', services: 'employee' });
  const c = loadConfig({ env: { PORT: '7000', LOGGING_LEVEL: 'debug' }, commandLine: properties });
  assert.is(c.server.port, 9091);
  assert.is(c.logging.level, 'warn');
  assert.equal([...c.services], ['employee']);
  assert.is(parseArgs(['--help']).help, true);
  for (const bad of [['serve'], ['-p', '80'], ['--verbose'], ['--server.port']])
    assert.throws(
      () => parseArgs(bad),
      (e: unknown) => e instanceof UsageError,
      bad.join(' '),
    );
});

t('an unknown key in the properties file or on the command line is a warning naming the closest key', () => {
  const dir = tempDir('troupe-config-');
  try {
    const file = join(dir, 'application.properties');
    writeFileSync(file, 'server.prot=9000\nsecurity.jwt.acces-token-validity=60\n');
    const warnings: string[] = [];
    const c = loadConfig({ file, commandLine: { 'logging.levle': 'warn' }, onWarning: (m) => warnings.push(m) });
    assert.is(c.server.port, 8080, 'an unknown key sets nothing');
    assert.equal(warnings, [
      `unknown configuration key "server.prot" in ${file}, ignored; the closest known key is server.port`,
      `unknown configuration key "security.jwt.acces-token-validity" in ${file}, ignored; the closest known key is security.jwt.access-token-validity`,
      'unknown configuration key "logging.levle" on the command line, ignored; the closest known key is logging.level',
    ]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

t('an unknown variable under a prefix of the keys is a warning naming the closest one; others are left alone', () => {
  const warnings: string[] = [];
  const c = loadConfig({
    env: {
      SECURITY_JWT_CLIENTID: 'typo-client',
      SECURITY_JWT_CLIENT_ID: 'right-client',
      SERVER_PROT: '9000',
      LOGGING: 'debug',
      PORT: '8081',
      MONGODB_URI: undefined,
      OTEL_SERVICE_NAME: 'troupe',
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318',
      NODE_ENV: 'development',
      SERVERLESS: '1',
      HOME: '/root',
    },
    onWarning: (m) => warnings.push(m),
  });
  assert.is(c.security.jwt.clientId, 'right-client');
  assert.is(c.server.port, 8081, 'PORT is ours, and an unknown variable sets nothing');
  assert.equal(warnings, [
    'unknown configuration variable "SECURITY_JWT_CLIENTID" in the environment, ignored; the closest known variable is SECURITY_JWT_CLIENT_ID (security.jwt.client-id)',
    'unknown configuration variable "SERVER_PROT" in the environment, ignored; the closest known variable is SERVER_PORT (server.port)',
    'unknown configuration variable "LOGGING" in the environment, ignored; the closest known variable is LOGGING_LEVEL (logging.level)',
  ]);
});

/** `npm start`'s entry point with the given arguments, no properties file, a throwaway data dir. */
function start(args: readonly string[], env: Record<string, string> = {}) {
  const dataDir = tempDir('troupe-start-');
  try {
    return spawnSync(process.execPath, ['src/main.ts', ...args], {
      encoding: 'utf8',
      timeout: 20_000,
      env: { ...process.env, CONFIG_FILE: '/dev/null', DATA_DIR: dataDir, ...env },
    });
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

t('npm start --help prints the usage; an unknown argument is refused with it (exit 2)', () => {
  const help = start(['--help']);
  assert.is(help.status, 0);
  assert.match(help.stdout, /^usage: npm start/);
  const bad = start(['--verbose']);
  assert.is(bad.status, 2);
  assert.match(bad.stderr, /^unknown argument "--verbose"\nusage: npm start/);
});

t('npm start warns of a misspelt key on its command line', () => {
  const run = start(['--server.prot=9000', '--server.port=not-a-port']);
  assert.is(run.status, 1);
  assert.equal(run.stderr.trim().split('\n'), [
    'Warning: unknown configuration key "server.prot" on the command line, ignored; the closest known key is server.port',
    'Invalid configuration: server.port: must be a whole number (got "not-a-port")',
  ]);
});

t('npm start warns once of a misspelt variable of ours, and names it', () => {
  const run = start(['--server.port=not-a-port'], { SECURITY_JWT_CLIENTID: 'typo-client' });
  assert.is(run.status, 1);
  assert.equal(run.stderr.trim().split('\n'), [
    'Warning: unknown configuration variable "SECURITY_JWT_CLIENTID" in the environment, ignored; the closest known variable is SECURITY_JWT_CLIENT_ID (security.jwt.client-id)',
    'Invalid configuration: server.port: must be a whole number (got "not-a-port")',
  ]);
});

t('a port in use ends start-up with one line naming server.port and PORT', async () => {
  const taken = createServer().listen(0, '127.0.0.1');
  await once(taken, 'listening');
  try {
    const { port } = taken.address() as { port: number };
    const run = start([], { PORT: String(port) });
    assert.is(run.status, 1);
    assert.is(
      run.stderr.trim(),
      `Cannot listen on 127.0.0.1:${port}: the port is in use; choose another with server.port (or PORT)`,
    );
  } finally {
    taken.close();
  }
});

t('a management port in use ends start-up with one line naming management.port', async () => {
  const taken = createServer().listen(0, '127.0.0.1');
  await once(taken, 'listening');
  try {
    const { port } = taken.address() as { port: number };
    const run = start([], { PORT: '0', MANAGEMENT_PORT: String(port) });
    assert.is(run.status, 1);
    assert.is(
      run.stderr.trim(),
      `Cannot listen on 127.0.0.1:${port}: the port is in use; choose another with management.port`,
    );
  } finally {
    taken.close();
  }
});

t.run();

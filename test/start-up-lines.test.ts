/** The start-up lines (src/composition/start-up-lines.ts): what was read and where it listens, whatever the level. */
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { loadConfig } from '../src/config.ts';
import { createLogger } from '../src/logger.ts';
import { logConfiguration, startUpLogger } from '../src/composition/start-up-lines.ts';
import { startChildServer } from './helpers/child.ts';
import { capture } from './helpers/capture.ts';
import { tempDir } from './helpers/server.ts';

const t = suite('the start-up lines');
const dirs: string[] = [];
t.after(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const SPA = { client_id: 'spa', token_endpoint_auth_method: 'none', redirect_uris: ['http://127.0.0.1:9/cb'] };

t('npm start at logging.level=warn: a line names the properties file, the clients file and the clients', async () => {
  const dir = tempDir('troupe-start-up-');
  dirs.push(dir);
  const clients = join(dir, 'clients.json');
  const properties = join(dir, 'application.properties');
  writeFileSync(clients, JSON.stringify([SPA]));
  writeFileSync(properties, `security.clients-file=${clients}\nlogging.level=warn\n`);
  const server = await startChildServer(join(dir, 'data'), { CONFIG_FILE: properties, LOGGING_LEVEL: 'warn' });
  try {
    const lines = server
      .output()
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    const read = lines.find((line) => String(line['msg']).startsWith('configuration:'));
    assert.ok(read, `no configuration line in:\n${server.output()}`);
    assert.is(read['propertiesFile'], properties);
    assert.is(read['clientsFile'], clients);
    assert.is(read['clients'], 2, "the security.jwt.* client and the file's");
    assert.match(String(read['msg']), `properties from ${properties}; clients from ${clients} (2 registered`);
    assert.ok(
      lines.some((line) => line['msg'] === 'troupe listening'),
      'the listening line too',
    );
    assert.not.ok(
      lines.some((line) => String(line['msg']).startsWith('issuer of this data directory stored')),
      'other info lines stay below the level',
    );
  } finally {
    await server.kill();
  }
});

t('no files: said as none, the one client counted', () => {
  const out = capture();
  logConfiguration(createLogger('info', out.stream), loadConfig());
  const line = JSON.parse(out.text()) as Record<string, unknown>;
  assert.is(line['propertiesFile'], null);
  assert.is(line['clientsFile'], null);
  assert.is(line['clients'], 1);
  assert.match(String(line['msg']), 'properties from no file; clients from no file (1 registered');
});

t('at logging.level=silent nothing is said', () => {
  const out = capture();
  logConfiguration(startUpLogger(createLogger('silent', out.stream)), loadConfig());
  assert.is(out.text(), '');
});

t.run();

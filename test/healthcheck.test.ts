// scripts/healthcheck.ts, the container image's HEALTHCHECK: it finds the server from the same
// configuration the server reads, on the management port when one is set.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { closedPort } from './helpers/ports.ts';
import { startTestServer } from './helpers/server.ts';

const t = suite('scripts/healthcheck.ts');
const run = promisify(execFile);

/** The script's exit code and stderr under `env` (no properties file). */
async function healthcheck(env: Record<string, string>): Promise<{ code: number; stderr: string }> {
  const options = {
    encoding: 'utf8' as const,
    timeout: 20_000,
    env: { ...process.env, CONFIG_FILE: '/dev/null', ...env },
  };
  try {
    const { stderr } = await run(process.execPath, ['scripts/healthcheck.ts'], options);
    return { code: 0, stderr };
  } catch (error) {
    const { code, stderr } = error as { code?: unknown; stderr?: unknown };
    if (typeof code !== 'number' || typeof stderr !== 'string') throw error;
    return { code, stderr };
  }
}

t('exit 0 while /health answers on the main port, reached on loopback from a wildcard address', async () => {
  const server = await startTestServer({ 'server.host': '0.0.0.0' });
  try {
    const port = new URL(server.url).port;
    assert.equal(await healthcheck({ SERVER_HOST: '0.0.0.0', SERVER_PORT: port }), { code: 0, stderr: '' });
  } finally {
    await server.close();
  }
});

t('with a management port set, it asks there and not on the main port', async () => {
  const server = await startTestServer({ 'management.port': '0' });
  try {
    const management = new URL(server.troupe.managementUrl ?? '').port;
    const main = new URL(server.url).port;
    assert.is((await healthcheck({ SERVER_PORT: main, MANAGEMENT_PORT: management })).code, 0);
    // With the main port up and the management port down, the check fails: it asks only the latter.
    const closed = String(await closedPort());
    const wrong = await healthcheck({ SERVER_PORT: main, MANAGEMENT_PORT: closed });
    assert.is(wrong.code, 1);
    assert.is(wrong.stderr, `http://127.0.0.1:${closed}/health: ECONNREFUSED\n`);
  } finally {
    await server.close();
  }
});

t('exit 1 with one line when nothing listens, or when the configuration is refused', async () => {
  const port = String(await closedPort());
  assert.equal(await healthcheck({ SERVER_PORT: port }), {
    code: 1,
    stderr: `http://127.0.0.1:${port}/health: ECONNREFUSED\n`,
  });
  const refused = await healthcheck({ SERVER_PORT: 'eighty' });
  assert.is(refused.code, 1);
  assert.match(refused.stderr, /^Invalid configuration: server\.port: [^\n]*\n$/);
});

t.run();

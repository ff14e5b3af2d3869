import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { readFileSync } from 'node:fs';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestServer, type TestServer } from './helpers/server.ts';

const ctx = {} as { server: TestServer };
const t = suite('README quick start', ctx);
t.before(async () => {
  ctx.server = await startTestServer();
});
t.after(async () => ctx.server?.close());

function quickstart(): string {
  const readme = readFileSync('README.md', 'utf8');
  const m = /<!-- quickstart -->\s*```bash\n([\s\S]*?)```\s*<!-- \/quickstart -->/.exec(readme);
  if (!m?.[1]) throw new Error('README has no quickstart block');
  return m[1];
}

// The server runs in this process, so the script must run asynchronously.
const run = promisify(execFile);

t('the curl session runs as written against a real server', async () => {
  const script = quickstart().replaceAll('http://127.0.0.1:8080', ctx.server.url);
  const env = { ...process.env, BASH_ENV: undefined, ENV: undefined };
  const result = await run('bash', ['--norc', '--noprofile', '-euo', 'pipefail', '-c', script], { encoding: 'utf8', timeout: 60_000, env });
  assert.is(result.stderr, '');
  assert.match(result.stdout, /"username":"admin"/);
  assert.match(result.stdout, /"username":"john.doe"/);
  assert.match(result.stdout, /Hello john\.doe, you are an administrator\./);
  assert.match(result.stdout, /Hello john\.doe, you are a user\./);
  assert.match(result.stdout, /"items":\[\{"id":"[0-9a-f]{24}","name":"Jane Roe","dateOfBirth":"1990-04-12"/);
  assert.match(result.stdout, /"user":\{"id":"[0-9a-f]{24}","name":"Ada Lovelace","email":"ada@example.com"/);
  assert.match(result.stdout, /"type":"USER_CREATED"/);
  assert.not.match(result.stdout, /"error"|"status":[45]\d\d/);
});

t.run();

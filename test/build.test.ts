// `npm run build`: the compiled server runs as plain JavaScript (no type stripping), with its SQL
// migrations, its BCrypt worker, the sign-in pages' theme and its package metadata beside it, and
// so do the operator's commands (`keys`, `hash`).
import bcrypt from 'bcryptjs';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startChildServer } from './helpers/child.ts';
import { tempDir } from './helpers/server.ts';
import { login } from './helpers/tokens.ts';

const t = suite('npm run build');

t('the compiled server starts with plain node and serves a login and each service', async () => {
  const out = tempDir('troupe-build-');
  const dataDir = tempDir();
  try {
    execFileSync(process.execPath, ['scripts/build.mjs', out], { stdio: 'pipe' });
    assert.ok(existsSync(join(out, 'src/main.js')), 'main.js emitted');
    // The output lives outside the project here, so it needs the project's packages beside it.
    symlinkSync(resolve('node_modules'), join(out, 'node_modules'));
    const server = await startChildServer(dataDir, {}, [join(out, 'src/main.js')]);
    try {
      const { access_token: token } = await login(server.url);
      const auth = { Authorization: `Bearer ${token}` };
      const users = (await (await fetch(`${server.url}/app/listAll`, { headers: auth })).json()) as {
        username: string;
      }[];
      assert.ok(
        users.some((u) => u.username === 'john.doe'),
        'listAll answers from the migrated database',
      );
      const search = await fetch(`${server.url}/api/employee/search`, {
        method: 'POST',
        headers: { ...auth, 'Content-Type': 'application/json' },
        body: '{}',
      });
      assert.is(search.status, 200);
      assert.is(
        (await fetch(`${server.url}/api/users/activity?userId=000000000000000000000000`, { headers: auth })).status,
        404,
      );
      // The sign-in pages' default theme is read from beside the compiled code.
      assert.is((await fetch(`${server.url}/oauth/sign-in/style.css`)).status, 200);
      const doc = (await (await fetch(`${server.url}/openapi.json`)).json()) as { info: { version: string } };
      assert.is(doc.info.version, (JSON.parse(readFileSync('package.json', 'utf8')) as { version: string }).version);
      // The operator's commands are compiled too: the key set the server made, listed from the same store.
      const env = { ...process.env, DATA_DIR: dataDir };
      const listed = JSON.parse(
        execFileSync(process.execPath, [join(out, 'scripts/keys.js'), 'list', '--json'], { env, encoding: 'utf8' }),
      ) as { use: string; state: string }[];
      assert.equal(
        listed.map((k) => [k.use, k.state]),
        [
          ['access', 'active'],
          ['id_token', 'active'],
        ],
      );
      const hash = execFileSync(process.execPath, [join(out, 'scripts/hash.js'), 'a-client-secret', '--cost', '4'], {
        encoding: 'utf8',
      }).trim();
      assert.ok(bcrypt.compareSync('a-client-secret', hash), 'hash.js prints a BCrypt hash of the secret');
    } finally {
      await server.kill();
    }
  } finally {
    rmSync(out, { recursive: true, force: true });
    rmSync(dataDir, { recursive: true, force: true });
  }
});

t.run();

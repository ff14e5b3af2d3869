/**
 * Python's authlib as the relying party (test/fixtures/authlib-relying-party.py): it discovers
 * troupe, builds the authorization URL (PKCE, state, nonce), redeems the code the sign-in form gives,
 * validates the id_token against the JWKS (signature, issuer, audience, nonce, at_hash), calls
 * UserInfo and refreshes. Needs a Python 3 with authlib and requests (Debian: python3-authlib);
 * without one the suite is skipped, and under `CI=true` it fails instead.
 */
import { spawn, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { openForm, submit } from '../helpers/authorize.ts';
import { WEB } from '../helpers/clients.ts';
import { startLibrarySetup } from '../helpers/oauth-library.ts';
import { onPath, skipSuite } from '../helpers/skip.ts';

const NAME = "authlib (Python): an OpenID relying party's code flow, id_token, userinfo and refresh";
const SCRIPT = fileURLToPath(new URL('../fixtures/authlib-relying-party.py', import.meta.url));
const MISSING = 'no Python 3 with authlib and requests: apt-get install python3-authlib python3-requests';

/** The first Python 3 (on PATH, then Debian's own) that imports authlib and requests. */
const PYTHON = [onPath('python3'), '/usr/bin/python3'].find(
  (python) =>
    python !== undefined && spawnSync(python, ['-c', 'import authlib, requests'], { stdio: 'ignore' }).status === 0,
);

/** Runs the script (beside the server of this process: never a synchronous spawn); its JSON answer. */
async function run(python: string, args: readonly string[], input = ''): Promise<Record<string, unknown>> {
  const child = spawn(python, [SCRIPT, ...args], { stdio: ['pipe', 'pipe', 'pipe'], timeout: 30_000 });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  child.stdin.end(input);
  const status = await new Promise<number | null>((resolve) => child.on('close', resolve));
  assert.is(status, 0, `authlib refused: ${stderr}`);
  return JSON.parse(stdout) as Record<string, unknown>;
}

if (PYTHON === undefined && process.env['CI'] !== 'true') skipSuite(NAME, MISSING);
else {
  const t = suite(NAME);
  t('authlib accepts discovery, the id_token, userinfo and a refresh', async () => {
    assert.ok(PYTHON, `${MISSING} (CI=true: a missing authlib fails the run)`);
    const setup = await startLibrarySetup({ web: { scope: 'openid profile email read' } });
    try {
      const started = await run(PYTHON, ['start', setup.server.url, WEB.id, setup.target.callback]);
      const res = await submit(setup.server.url, await openForm(String(started['url'])));
      assert.is(res.status, 303);
      const found = await run(
        PYTHON,
        ['finish'],
        JSON.stringify({ ...started, client_secret: WEB.secret, callback: res.headers.get('location') }),
      );
      assert.match(String(found['sub']), /^account:/);
      assert.is(found['aud'], WEB.id);
      assert.is(found['nonce'], started['nonce']);
      assert.equal((found['userinfo'] as { sub?: string }).sub, found['sub']);
      assert.equal(
        [found['refreshed_sub'], found['refreshed_auth_time']],
        [found['sub'], found['auth_time']],
        "a refresh's id_token: the same sub and auth_time",
      );
    } finally {
      await setup.close();
    }
  });
  t.run();
}

// Runs last (files run in name order): audits every log line that the test servers of this run
// wrote, for the secrets the tests used. The log file exists only under `npm test`
// (scripts/test.mjs sets TROUPE_TEST_LOG); a file run on its own has nothing to audit.
import { existsSync, readFileSync } from 'node:fs';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { CLIENT_SECRETS } from './helpers/clients.ts';

const t = suite('logs of the whole test run');
const path = process.env['TROUPE_TEST_LOG'];

const KNOWN = [
  'john-password',
  'admin-password',
  'jane-password',
  'troupe-secret',
  'wrong-but-secret-password',
  Buffer.from('troupe-client:troupe-secret').toString('base64'),
  ...CLIENT_SECRETS,
];

if (path) {
  t('no password, client secret, access token or Authorization header in any log line', async () => {
    await new Promise((resolve) => setTimeout(resolve, 100)); // let buffered writes reach the file
    assert.ok(existsSync(path), 'the servers logged');
    const text = readFileSync(path, 'utf8');
    assert.ok(text.split('\n').length > 100, 'the run produced logs');
    for (const secret of KNOWN) assert.not.ok(text.includes(secret), `logged: ${secret.slice(0, 4)}…`);
    assert.not.match(text, /eyJ[A-Za-z0-9_-]{10,}\.eyJ/, 'an access token was logged');
    assert.not.match(text, /Bearer [A-Za-z0-9]/i, 'an Authorization header was logged');
    assert.not.match(text, /-----BEGIN [A-Z ]*PRIVATE KEY/, 'a private key was logged');
  });
}

t.run();

// The /docs browser suite on a machine without a browser: skipped with the reason, or under CI a failure.
import { execFile } from 'node:child_process';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { CHROMIUM_MISSING } from '../helpers/chromium.ts';

interface Run {
  readonly code: number;
  readonly out: string;
}

/** Runs the browser suite alone through the test runner, with no `chromium` on PATH and no CHROME_PATH. */
function runWithoutBrowser(extra: Record<string, string>): Promise<Run> {
  const env: NodeJS.ProcessEnv = { ...process.env, PATH: '/nonexistent', FORCE_COLOR: '0', ...extra };
  delete env['CHROME_PATH'];
  if (extra['CI'] === undefined) delete env['CI'];
  const args = ['scripts/test.mjs', 'http/docs-browser\\.test\\.ts$'];
  return new Promise((resolve) => {
    execFile(process.execPath, args, { env, timeout: 60_000 }, (error, stdout, stderr) => {
      resolve({ code: typeof error?.code === 'number' ? error.code : error ? 1 : 0, out: `${stdout}${stderr}` });
    });
  });
}

const t = suite('/docs browser suite without chromium');

t('skipped, with how to install it on the output', async () => {
  const { code, out } = await runWithoutBrowser({});
  assert.is(code, 0, out);
  assert.ok(out.includes(`\n /docs in a real browser  skipped: ${CHROMIUM_MISSING}  (0 / 0)\n`), out);
  assert.ok(out.includes(`\nskipped:\n  /docs in a real browser: ${CHROMIUM_MISSING}\n`), out);
  assert.match(out, /^0 passed, 0 failed, 1 skipped$/m);
  assert.match(out, /Passed:\s+0\b/);
});

t('CI=true: the suite fails, with the same reason', async () => {
  const { code, out } = await runWithoutBrowser({ CI: 'true' });
  assert.is(code, 1, out);
  assert.ok(out.includes(CHROMIUM_MISSING), out);
  assert.match(out, /Total:\s+4\b/); // each test of the suite ran, and failed
  assert.match(out, /Passed:\s+0\b/);
});

t.run();

// Runs every uvu suite under test/ (TypeScript run by Node's own type stripping) and ends with one line: "N passed, N failed[, N skipped]".
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

// `node scripts/test.mjs [PATTERN]`: PATTERN is a regular expression over the paths of the
// *.test.ts files under test/ (`actors/user`, `test/actors/user.test.ts` and `http/.*` all work).
const asked = process.argv[2];
const pattern = new RegExp((asked ?? '').replace(/^(\.\/)?test\//, ''), 'i');
const files = readdirSync('test', { recursive: true })
  .map((name) => String(name).split('\\').join('/'))
  .filter((name) => name.endsWith('.test.ts') && pattern.test(name))
  .sort();
if (files.length === 0) {
  console.error(`no test file under test/ matches "${asked}"`);
  process.exit(1);
}
// uvu reads its pattern as a regular expression over the same paths: match exactly these files.
const only = `^(${files.map((name) => name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|')})$`;
// Every test server logs here at debug level; the last suite audits the whole file for secrets.
const log = join(mkdtempSync(join(tmpdir(), 'troupe-test-log-')), 'servers.log');
const child = spawn(process.execPath, ['node_modules/uvu/bin.js', 'test', only, '--no-color'], {
  stdio: ['ignore', 'pipe', 'inherit'],
  env: { ...process.env, FORCE_COLOR: '0', TROUPE_TEST_LOG: log },
});

let out = '';
child.stdout.on('data', (chunk) => {
  out += chunk;
  process.stdout.write(chunk);
});

child.on('close', (code) => {
  // eslint-disable-next-line no-control-regex -- strips ANSI colour codes
  const plain = out.replace(/\x1b\[[0-9;]*m/g, '');
  const count = (label) => Number(plain.match(new RegExp(`^\\s*${label}:\\s+(\\d+)`, 'm'))?.[1] ?? NaN);
  const total = count('Total');
  const passed = count('Passed');
  // Suites that cannot run here print one line each (test/helpers/skip.ts), with their reason.
  const skipped = (plain.match(/^ {2}skipped: /gm) ?? []).length;
  if (Number.isNaN(total)) finish(code || 1, '0 passed, 1 failed');
  const failed = total - passed; // uvu leaves skipped tests out of Total; a suite whose before() threw counts here
  finish(
    code || failed > 0 || total + skipped === 0 ? 1 : 0,
    `${passed} passed, ${failed} failed${skipped > 0 ? `, ${skipped} skipped` : ''}`,
  );
});

/** Prints the summary last and exits; the servers' log (megabytes) is removed, or kept when the run failed. */
function finish(code, summary) {
  if (code !== 0 && existsSync(log)) console.log(`the test servers' log is kept: ${log}`);
  else rmSync(dirname(log), { recursive: true, force: true });
  console.log(summary);
  process.exit(code);
}

// Runs every uvu suite under test/ (TypeScript run by Node's own type stripping) and ends with one line: "N passed, N failed[, N skipped]".
// First: on an unsupported Node (which cannot load the .ts suites), one line naming what to install.
import '../src/supported-node.mjs';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { uvuOutput } from './test-output.mjs';

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
const output = uvuOutput((text) => process.stdout.write(text));
child.stdout.setEncoding('utf8'); // a character split across two chunks arrives whole
child.stdout.on('data', (chunk) => {
  out += chunk;
  output.receive(chunk);
});

// eslint-disable-next-line no-control-regex -- strips ANSI colour codes
const plainText = (text) => text.replace(/\x1b\[[0-9;]*m/g, '');

child.on('close', (code) => {
  output.end();
  const plain = plainText(out);
  // uvu's counts are its last lines: a failed test's message may quote another run's above them.
  const count = (label) => Number([...plain.matchAll(new RegExp(`^ {2}${label}:\\s+(\\d+)`, 'gm'))].at(-1)?.[1] ?? NaN);
  const total = count('Total');
  const passed = count('Passed');
  // Suites that cannot run here print one line each (test/helpers/skip.ts), with their reason:
  // ` NAME  skipped: REASON  (0 / 0)`.
  const reasons = [...plain.matchAll(/^ (\S.*?) {2}skipped: (.*?) {2}\(0 \/ 0\)$/gm)].map(
    ([, name, why]) => `${name}: ${why}`,
  );
  const marked = count('Skipped') || 0; // tests marked .skip, which uvu counts without a reason
  if (marked > 0) reasons.push(`${marked} test(s) marked .skip`);
  const skipped = reasons.length + (marked > 0 ? marked - 1 : 0);
  if (Number.isNaN(total)) finish(code || 1, reasons, '0 passed, 1 failed');
  const failed = total - passed; // uvu leaves skipped tests out of Total; a suite whose before() threw counts here
  finish(
    code || failed > 0 || total + skipped === 0 ? 1 : 0,
    reasons,
    `${passed} passed, ${failed} failed${skipped > 0 ? `, ${skipped} skipped` : ''}`,
  );
});

/**
 * Prints the summary last, the reasons for skipping right above it (they scrolled away at the top),
 * and exits; the servers' log (megabytes) is removed, or kept when the run failed.
 */
function finish(code, reasons, summary) {
  if (code !== 0 && existsSync(log)) console.log(`the test servers' log is kept: ${log}`);
  else rmSync(dirname(log), { recursive: true, force: true });
  if (reasons.length > 0) console.log(['skipped:', ...reasons.map((reason) => `  ${reason}`)].join('\n'));
  console.log(summary);
  process.exit(code);
}

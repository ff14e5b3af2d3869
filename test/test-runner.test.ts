// scripts/test.mjs, the runner behind `npm test`: what it prints last and what it leaves behind.
import { execFile } from 'node:child_process';
import { readdirSync, rmSync } from 'node:fs';
import { dirname } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { tempDir } from './helpers/server.ts';
import { uvuOutput } from '../scripts/test-output.mjs';

const t = suite('scripts/test.mjs');

t('a passing run ends with its summary line and leaves nothing of its own in the temporary directory', async () => {
  const tmp = tempDir('troupe-runner-');
  try {
    // One suite with real servers, so the run writes the servers' log (into TMPDIR, made private here).
    const { code, out } = await new Promise<{ code: number; out: string }>((resolve) => {
      execFile(
        process.execPath,
        ['scripts/test.mjs', 'http/app\\.test\\.ts$'],
        { env: { ...process.env, TMPDIR: tmp }, timeout: 120_000 },
        (error, stdout) => resolve({ code: error ? Number(error.code ?? 1) : 0, out: stdout }),
      );
    });
    assert.is(code, 0, out);
    assert.match(out.trimEnd().split('\n').at(-1) ?? '', /^[1-9]\d* passed, 0 failed$/);
    assert.equal(
      readdirSync(tmp).filter((name) => name.startsWith('troupe-')),
      [],
      "the servers' log and the data directories are removed",
    );
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
});

/** The runner with `args`, its exit code and what it printed. */
function runner(
  args: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ code: number; out: string; err: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['scripts/test.mjs', ...args], { env, timeout: 120_000 }, (error, stdout, stderr) =>
      resolve({ code: error ? Number(error.code ?? 1) : 0, out: stdout, err: stderr }),
    );
  });
}

t("a skipped suite's reason is repeated above the summary, and uvu's own Skipped count is left out", async () => {
  // Without MONGODB_URI and without mongod on the PATH, the MongoDB suites are skipped with their reason.
  const env: NodeJS.ProcessEnv = { ...process.env, PATH: dirname(process.execPath) };
  delete env['MONGODB_URI'];
  const { code, out } = await runner(['stores/key-store\\.mongo\\.test\\.ts$|ids\\.test\\.ts$'], env);
  assert.is(code, 0, out);
  const lines = out.trimEnd().split('\n');
  assert.match(lines.at(-1) ?? '', /^[1-9]\d* passed, 0 failed, 1 skipped$/);
  assert.equal(lines.slice(-3, -1), [
    'skipped:',
    '  KeyStore contract (MongoDB): no MongoDB server: set MONGODB_URI, or put mongod on PATH',
  ]);
  assert.not.match(out, /Skipped:/, 'no "Skipped: 0" above "1 skipped"');
  assert.match(out, /^ {2}Total: {5}\d+$/m, "uvu's other counts stay");
});

/** What the runner writes of `chunks` of uvu's output. */
function filtered(chunks: readonly string[]): string {
  let text = '';
  const output = uvuOutput((written) => (text += written));
  for (const chunk of chunks) output.receive(chunk);
  output.end();
  return text;
}

t('a note in a row of dots is printed on a line of its own after the row, however the output is cut', () => {
  const raw =
    'reliability/load.test.ts\n load  • •  note: load window 1 of 2: 10 requests\n•' +
    '  note: load window 2 of 2: 12 requests\n  (3 / 3)\n\n  Total:     3\n  Skipped:   0\n  Passed:    3\n';
  const expected =
    'reliability/load.test.ts\n load  • ••  (3 / 3)\n  load window 1 of 2: 10 requests\n' +
    '  load window 2 of 2: 12 requests\n\n  Total:     3\n  Passed:    3\n';
  assert.is(filtered([raw]), expected);
  for (let cut = 1; cut < raw.length; cut++)
    assert.is(filtered([raw.slice(0, cut), raw.slice(cut)]), expected, `cut at ${cut}`);
  assert.is(filtered([...raw]), expected, 'one character at a time');
});

t('a skipped suite is one line under its file, naming its reason', async () => {
  const env: NodeJS.ProcessEnv = { ...process.env, PATH: dirname(process.execPath) };
  delete env['MONGODB_URI'];
  const { out } = await runner(['stores/key-store\\.mongo\\.test\\.ts$'], env);
  assert.match(
    out,
    /^stores\/key-store\.mongo\.test\.ts\n KeyStore contract \(MongoDB\) {2}skipped: no MongoDB server: .* {2}\(0 \/ 0\)$/m,
  );
});

t('a path with its test/ prefix runs that one file, and only test files are ever loaded', async () => {
  const { code, out } = await runner(['test/repository.test.ts']);
  assert.is(code, 0, out);
  assert.equal(out.match(/^\S+\.test\.ts$/gm), ['repository.test.ts'], 'that file and no other ran');
  assert.match(out.trimEnd().split('\n').at(-1) ?? '', /^[1-9]\d* passed, 0 failed$/);
});

t('a pattern that matches no test file says so, and runs nothing', async () => {
  const { code, out, err } = await runner(['helpers/probe']);
  assert.is(code, 1);
  assert.is(err.trim(), 'no test file under test/ matches "helpers/probe"');
  assert.is(out, '', 'no summary line of tests that never ran');
});

t.run();

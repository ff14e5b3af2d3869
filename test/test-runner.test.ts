// scripts/test.mjs, the runner behind `npm test`: what it prints last and what it leaves behind.
import { execFile } from 'node:child_process';
import { readdirSync, rmSync } from 'node:fs';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { tempDir } from './helpers/server.ts';

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

t.run();

/** The BCrypt worker pool: hashes and compares off the event loop, on threads that yield to it. */
import { readdirSync, readFileSync } from 'node:fs';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createPasswordHasher } from '../../src/security/passwords.ts';

const t = suite('security: the BCrypt worker pool');

/** The nice value of each thread of this process; the main thread's id is the process id. */
function niceByThread(): { tid: number; name: string; nice: number }[] {
  return readdirSync('/proc/self/task').map((tid) => ({
    tid: Number(tid),
    name: readFileSync(`/proc/self/task/${tid}/comm`, 'utf8').trim(),
    nice: Number(readFileSync(`/proc/self/task/${tid}/stat`, 'utf8').split(') ')[1]?.split(' ')[16]),
  }));
}

const mainThreadNice = (): number => niceByThread().find((thread) => thread.tid === process.pid)?.nice ?? NaN;

t('a hash made by the pool verifies, a wrong password does not', async () => {
  const pool = createPasswordHasher(1);
  try {
    const hash = await pool.hash('correct horse battery', 4);
    assert.ok(await pool.verify('correct horse battery', hash));
    assert.not.ok(await pool.verify('wrong horse battery', hash));
  } finally {
    await pool.close();
  }
});

t('on Linux the BCrypt threads run at a lower priority than the event loop, which keeps its own', async () => {
  if (process.platform !== 'linux') return;
  const main = mainThreadNice();
  assert.ok(Number.isInteger(main));
  const pool = createPasswordHasher(1);
  try {
    await pool.hash('correct horse battery', 4);
    const threads = niceByThread();
    // Node names its threads differently from one line to the next; the pool's is the one that is nicer.
    assert.ok(
      threads.some((thread) => thread.tid !== process.pid && thread.nice === Math.max(10, main)),
      JSON.stringify(threads),
    );
    assert.is(mainThreadNice(), main);
  } finally {
    await pool.close();
  }
});

t.run();

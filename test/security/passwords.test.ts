/** The BCrypt worker pool: hashes and compares off the event loop, on threads that yield to it. */
import { readdirSync, readFileSync } from 'node:fs';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createPasswordHasher } from '../../src/security/passwords.ts';

const t = suite('security: the BCrypt worker pool');

/** The nice value of each thread of this process, by thread name. */
function niceByThread(): { name: string; nice: number }[] {
  return readdirSync('/proc/self/task').map((tid) => ({
    name: readFileSync(`/proc/self/task/${tid}/comm`, 'utf8').trim(),
    nice: Number(readFileSync(`/proc/self/task/${tid}/stat`, 'utf8').split(') ')[1]?.split(' ')[16]),
  }));
}

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
  const main = niceByThread().find((thread) => thread.name === 'MainThread')?.nice ?? NaN;
  const pool = createPasswordHasher(1);
  try {
    await pool.hash('correct horse battery', 4);
    const threads = niceByThread();
    assert.ok(
      threads.some((thread) => thread.name === 'WorkerThread' && thread.nice === Math.max(10, main)),
      JSON.stringify(threads),
    );
    assert.is(threads.find((thread) => thread.name === 'MainThread')?.nice, main);
  } finally {
    await pool.close();
  }
});

t.run();

// Runs in a worker thread: BCrypt blocks its thread for tens of milliseconds per call, so it is
// kept off the event loop that serves HTTP and the actors.
import { getPriority, setPriority } from 'node:os';
import bcrypt from 'bcryptjs';

// A login storm keeps every BCrypt thread busy, one per core, and the event loop then waits for a
// core like any of them: other requests queued behind the hashing. On Linux the nice value is a
// thread's own (setpriority of 0 is the calling thread), so this thread yields a core to the
// event loop whenever both want one and still takes every idle cycle. Elsewhere it would lower
// the whole process, so it is left alone; a process started nicer than that keeps its value.
const NICE = 10;
if (process.platform === 'linux' && getPriority(0) < NICE) setPriority(NICE);

/** @param {{ password: string, hash: string }} task */
export function compare({ password, hash }) {
  return bcrypt.compareSync(password, hash);
}

/** @param {{ password: string, cost: number }} task */
export function hash({ password, cost }) {
  return bcrypt.hashSync(password, cost);
}

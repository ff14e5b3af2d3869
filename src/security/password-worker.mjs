// Runs in a worker thread: BCrypt blocks its thread for tens of milliseconds per call, so it is
// kept off the event loop that serves HTTP and the actors.
import bcrypt from 'bcryptjs';

/** @param {{ password: string, hash: string }} task */
export function compare({ password, hash }) {
  return bcrypt.compareSync(password, hash);
}

/** @param {{ password: string, cost: number }} task */
export function hash({ password, cost }) {
  return bcrypt.hashSync(password, cost);
}

/** A throttled attempt (a login, a password check) settled with the outcome of the work it admitted. */
import type { Attempt } from '../src/security/login-throttle.ts';

/**
 * Waits for `work` and settles the throttled attempt with its outcome; an attempt whose work threw
 * (a timeout, a full mailbox) was never judged and is given back.
 */
export async function settle<R>(
  attempt: Attempt | undefined,
  work: Promise<R>,
  outcome: (result: R) => keyof Attempt,
): Promise<R> {
  let result: R;
  try {
    result = await work;
  } catch (error) {
    await attempt?.abandoned();
    throw error;
  }
  await attempt?.[outcome(result)]();
  return result;
}

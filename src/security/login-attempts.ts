/**
 * Password logins as the actors that decide them count them (TokenActor's password grant and
 * sign-in, AccountActor's own-password change): each is admitted by the login throttle
 * (`login-throttle.ts`) before any BCrypt work, and settled with its outcome once it is decided.
 * A refused admission is a reply, {@link Throttled}, which HTTP renders as 429 with `Retry-After`.
 */
import type { Attempt, LoginThrottle, Refusal } from './login-throttle.ts';

/**
 * The address of a login whose message names none: one typed at the REPL (an operator at the
 * server's own console) or sent by the process itself. It is counted all the same, fail closed as
 * every login is: per username (unless this address has logged in as that account), per username and
 * address, and all such logins together as the one address of their own. No client address looks
 * like it (HTTP always sends the client's address), so none shares its counts.
 */
export const UNADDRESSED = 'unaddressed';

/**
 * A login refused by the throttle, before its password was looked at: retry in `retryAfter`
 * seconds. Its message says why: too many failed logins, or too many logins being checked at once
 * (then a wait of seconds, and nothing was counted against anyone).
 */
/** The reply code of a login the throttle refused. */
export type ThrottleCode = 'login.throttled';

export interface Throttled {
  readonly ok: false;
  readonly code: ThrottleCode;
  readonly message: string;
  readonly retryAfter: number;
  /** Refused for the logins being checked at once, not for failures: nothing counts against anyone. */
  readonly inFlight: boolean;
}

/** What a refusal says was refused: too many of `failed`, or too many `inFlight`. */
export interface ThrottleWords {
  readonly failed: string;
  readonly inFlight: string;
}

/** A login's refusal: the password grant's and the sign-in form's. */
export const LOGINS: ThrottleWords = { failed: 'failed logins', inFlight: 'logins in flight' };

/** The refusal of an own password change, whose current password is the check. */
export const PASSWORD_CHECKS: ThrottleWords = {
  failed: 'password checks',
  inFlight: 'password checks under way at once',
};

export const throttled = ({ retryAfter, inFlight }: Refusal, words: ThrottleWords = LOGINS): Throttled => ({
  ok: false,
  code: 'login.throttled',
  message: `Too many ${inFlight ? words.inFlight : words.failed}; retry in ${retryAfter} seconds`,
  retryAfter,
  inFlight,
});

/** What a login's answer says of its password: matched, did not, or was never judged. */
export type Outcome = keyof Attempt;

/**
 * Waits for `work` and settles the throttled attempt with its outcome; an attempt whose work threw
 * (a store out of reach, a crash) was never judged and is given back.
 */
export async function settle<R>(
  attempt: Attempt | undefined,
  work: Promise<R>,
  outcome: (result: R) => Outcome,
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

/**
 * A password login of `username` from `address` (none: {@link UNADDRESSED}): counted before
 * `work` runs, {@link Throttled} instead of running it past the limits, and settled with the
 * outcome of its answer before that answer is given.
 */
export async function throttledLogin<R>(
  throttle: Pick<LoginThrottle, 'begin'>,
  login: { readonly username: string; readonly address?: string | undefined; readonly words?: ThrottleWords },
  work: () => Promise<R>,
  outcome: (result: R) => Outcome,
): Promise<R | Throttled> {
  const admission = await throttle.begin(login.username, login.address ?? UNADDRESSED);
  if ('retryAfter' in admission) return throttled(admission, login.words);
  return settle(admission.attempt, work(), outcome);
}

import { fail, type Failure, type SystemCode } from './reply.ts';
import { tell, type CrashPolicy, type Decision, type Ref } from './nact.ts';

/** How many crashes an actor may have within a window before it escalates. */
export interface RestartBudget {
  readonly maxCrashes: number;
  readonly withinMs: number;
}

export const defaultBudget: RestartBudget = { maxCrashes: 10, withinMs: 60_000 };

export type CrashReporter = (error: unknown, path: string, decision: Decision) => void;

/** What a crash tells the sender: `unavailable` for a store that cannot be reached, else `internal`. */
export type FailureOf = (error: unknown) => SystemCode;

const MESSAGES: Readonly<Record<SystemCode, string>> = {
  internal: 'internal error',
  unavailable: 'a store cannot be reached; try again shortly',
};

/**
 * `: <the error's first line>`, so that a caller who can read replies (the REPL, a test) learns why
 * (`internal error: database is locked`). HTTP never shows it: its 500 and 503 have texts of their own.
 */
function causeOf(error: unknown): string {
  const line = error instanceof Error ? error.message.split('\n')[0]?.slice(0, 200) : undefined;
  return line ? `: ${line}` : '';
}

function senderOf(message: unknown): Ref<Failure<never>> | undefined {
  if (typeof message !== 'object' || message === null || !('sender' in message)) return undefined;
  const sender = (message as { sender: unknown }).sender;
  return typeof sender === 'object' && sender !== null && 'type' in sender
    ? (sender as Ref<Failure<never>>)
    : undefined;
}

/** What a message of no known kind names as its kind. */
function kindOf(message: unknown): string {
  const type = typeof message === 'object' && message !== null ? (message as { type?: unknown }).type : undefined;
  return typeof type === 'string' ? `'${type}'` : 'a message without a type';
}

/**
 * The `default` of an actor's switch over its messages. As with `assertNever`, a kind the switch
 * forgets fails to compile. A message of no known kind at run time (from untyped code) is its
 * sender's mistake, not the actor's fault: the sender gets a failure naming the kinds the actor
 * takes, and the actor neither crashes nor counts it against its restart budget.
 */
export function refuseUnknown(message: never, actor: string, kinds: readonly string[]): void {
  const sender = senderOf(message);
  if (sender) tell(sender, fail('internal', `${actor} takes ${kinds.join(' | ')}, not ${kindOf(message)}`));
}

/**
 * Reply-then-resume: the sender of the message that crashed gets `fail('internal')` at once (no
 * caller waits for a timeout), the error is reported, and the actor carries on with its state.
 * Past the restart budget the failure escalates instead: the actor is stopped and its parent
 * decides (see {@link Decision}), so whatever the actor kept, in its nact state or in the closures
 * of its spawn function, starts anew with it. A store that cannot be reached is no fault of the
 * actor: its sender gets `unavailable`, and it does not count.
 */
export function replyThenResume(
  report: CrashReporter,
  budget: RestartBudget = defaultBudget,
  failureOf: FailureOf = () => 'internal',
): CrashPolicy {
  let crashes: number[] = [];
  return (message, error, path) => {
    const code = failureOf(error);
    const sender = senderOf(message);
    if (sender) tell(sender, fail(code, `${MESSAGES[code]}${causeOf(error)}`));
    if (code === 'unavailable') {
      report(error, path, 'resume');
      return 'resume';
    }
    const now = Date.now();
    crashes = [...crashes.filter((t) => now - t < budget.withinMs), now];
    const decision: Decision = crashes.length > budget.maxCrashes ? 'escalate' : 'resume';
    if (decision === 'escalate') crashes = [];
    report(error, path, decision);
    return decision;
  };
}

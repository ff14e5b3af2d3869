import { fail, type Failure } from './reply.ts';
import { tell, type CrashPolicy, type Decision, type Ref } from './nact.ts';

/** How many crashes an actor may have within a window before it is reset. */
export interface RestartBudget {
  readonly maxCrashes: number;
  readonly withinMs: number;
}

export const defaultBudget: RestartBudget = { maxCrashes: 10, withinMs: 60_000 };

export type CrashReporter = (error: unknown, path: string, decision: Decision) => void;

function senderOf(message: unknown): Ref<Failure<never>> | undefined {
  if (typeof message !== 'object' || message === null || !('sender' in message)) return undefined;
  const sender = (message as { sender: unknown }).sender;
  return typeof sender === 'object' && sender !== null && 'type' in sender ? (sender as Ref<Failure<never>>) : undefined;
}

/**
 * Reply-then-resume: the sender of the message that crashed gets `fail('internal')` at once (no
 * caller waits for a timeout), the error is reported, and the actor carries on with its state.
 * Past the restart budget the actor is reset to its initial state instead.
 */
export function replyThenResume(report: CrashReporter, budget: RestartBudget = defaultBudget): CrashPolicy {
  let crashes: number[] = [];
  return (message, error, path) => {
    const now = Date.now();
    crashes = [...crashes.filter((t) => now - t < budget.withinMs), now];
    const decision: Decision = crashes.length > budget.maxCrashes ? 'reset' : 'resume';
    if (decision === 'reset') crashes = [];
    const sender = senderOf(message);
    if (sender) tell(sender, fail('internal', 'internal error'));
    report(error, path, decision);
    return decision;
  };
}

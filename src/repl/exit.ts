/**
 * What `.exit` (or Ctrl-D) waits for before the actors stop: the asks between actors still in
 * flight (UserActor → activity, say), whose work stopping the system would cut short. Not the
 * session's own asks (one interrupted with Ctrl-C has no one left to read its reply), and not what
 * an evaluation left behind (a timer of an interrupted `await`): the process ends without them.
 */

export interface ExitWait {
  /** Asks to the session's actor system still waiting for a reply. */
  readonly pending: () => number;
  /** Of those, the ones the session itself sent (`ask` in the REPL). */
  readonly ownPending: () => number;
  /** The longest wait, ms (`actors.ask-timeout-ms`: none of them waits longer). */
  readonly timeoutMs: number;
  /** Where the one line saying what it waits for goes, when it must wait. */
  readonly say: (line: string) => void;
}

/** Resolves once no ask between actors is in flight, or `timeoutMs` has passed; says so when it waits. */
export async function awaitAsksBetweenActors(wait: ExitWait): Promise<void> {
  const between = (): number => Math.max(0, wait.pending() - wait.ownPending());
  const first = between();
  if (first === 0) return;
  const seconds = Math.ceil(wait.timeoutMs / 1000);
  wait.say(`waiting for ${first} ask${first === 1 ? '' : 's'} between actors to finish (at most ${seconds} s)…`);
  const deadline = Date.now() + wait.timeoutMs;
  while (between() > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5));
}

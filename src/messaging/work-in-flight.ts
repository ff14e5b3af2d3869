/**
 * How much work each actor has running beside its mailbox (`pipe.ts`): begun when the actor hands
 * it off, ended when it settles. Asks read it with the mailbox (`reply-slots.ts`), so an actor
 * whose mailbox never fills, because it hands every message off at once, still refuses work past
 * its bound instead of piling it up without end (Akka's `mapAsync(n)`).
 *
 * Keyed by the actor's own reference (`ctx.self`, nact's `actor.reference`): an actor spawned
 * again starts from none, and a count goes with the actor it was kept for.
 */
const counts = new WeakMap<object, number>();

/** Counts one more piece of work beside the actor whose own reference is `self`. */
export function begin(self: object): void {
  counts.set(self, (counts.get(self) ?? 0) + 1);
}

/** The work begun with {@link begin} settled. */
export function end(self: object): void {
  const left = (counts.get(self) ?? 1) - 1;
  if (left > 0) counts.set(self, left);
  else counts.delete(self);
}

/** How much work runs beside the actor whose own reference is `self`. */
export function inFlight(self: object): number {
  return counts.get(self) ?? 0;
}

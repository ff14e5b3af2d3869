/** Observers of message handling: one per actor system (metrics count every message with it). */
import type { ActorSystem } from './refs.ts';

/** Told of every message an actor of the system finished handling: actor path parts, outcome, seconds taken. */
export type MessageObserver = (path: readonly string[], outcome: 'handled' | 'failed', seconds: number) => void;

const observers = new Map<string, MessageObserver>();

/** Observes every actor of `system` (one observer per system; metrics use it). */
export function observe(system: ActorSystem, observer: MessageObserver | undefined): void {
  if (observer) observers.set(system.name, observer);
  else observers.delete(system.name);
}

/** The observer of the system named `name`, if any. */
export const observerOf = (name: string): MessageObserver | undefined => observers.get(name);

/** Drops the observer of a stopped system. */
export const forgetObserver = (name: string): void => {
  observers.delete(name);
};

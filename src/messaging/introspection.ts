/** The live actor tree, for the REPL's `.actors`, metrics and the activity router. */
import { concrete, isActor, raw, type ActorSystem, type AnyRef, type RawActor, type RawRef } from './nact.ts';
import { waitingCount } from './reply-table.ts';

export interface ActorInfo {
  readonly name: string;
  readonly path: string;
  readonly mailbox: number;
  readonly children: readonly ActorInfo[];
}

/** Whether the actor behind `ref` is alive. */
export function isAlive(ref: AnyRef): boolean {
  return concrete(ref) !== undefined;
}

/** How many messages wait in the actor's mailbox (0 for an unknown actor). */
export function mailboxSize(ref: AnyRef): number {
  const actor = concrete(ref);
  return actor && isActor(actor) ? actor.mailbox.length : 0;
}

function describe(actor: RawActor): ActorInfo {
  return {
    name: actor.name,
    path: actor.path.toString(),
    mailbox: actor.mailbox.length,
    children: [...actor.children.values()].map(describe),
  };
}

/**
 * Whether two refs name the same actor. nact resolves a ref by its system and path on every use,
 * so a copy (`{ ...ref }`) or a hand-built ref reaches the actor the original does: identity of
 * the objects says nothing, the system and path say everything.
 */
export function sameActor(a: AnyRef, b: AnyRef): boolean {
  const [x, y] = [raw(a) as Partial<RawRef>, raw(b) as Partial<RawRef>];
  const [px, py]: unknown[] = [x.path?.parts, y.path?.parts];
  return (
    (x as { type?: unknown }).type === (y as { type?: unknown }).type &&
    typeof x.system?.name === 'string' &&
    x.system.name === y.system?.name &&
    Array.isArray(px) &&
    Array.isArray(py) &&
    px.length === py.length &&
    px.every((part, i) => part === py[i])
  );
}

/** The names from the system down to the actor behind `ref`: `['activity']`, `['activity', '42']`. */
export function pathOf(ref: AnyRef): readonly string[] {
  return raw(ref).path.parts;
}

/** The live actor tree under a system or an actor. */
export function actorTree(ref: AnyRef): readonly ActorInfo[] {
  const node = concrete(ref);
  return node ? [...node.children.values()].map(describe) : [];
}

/** How many asks to the system's actors still wait for their reply. */
export function pendingAsks(system: ActorSystem): number {
  return waitingCount(system.name);
}

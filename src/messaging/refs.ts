/**
 * The typed references actors are told through: the lowest module of src/messaging, so that
 * `nact.ts`, its raw shapes (`nact-raw.ts`) and the observers import it and not one another.
 * Everything else imports these types from `nact.ts`.
 */
declare const protocol: unique symbol;

/** A reference to an actor (or reply slot) that accepts messages of type `M`. */
export interface Ref<M> {
  readonly type: 'actor' | 'temp' | 'system' | 'nobody';
  /** Phantom: makes `Ref<M>` contravariant in `M`, never present at run time. */
  readonly [protocol]?: (message: M) => void;
}

/** Any reference, whatever it accepts (refs are contravariant, so this is the widest one). */
export type AnyRef = Ref<never>;

/** The root of an actor tree; top-level actors are spawned under it. */
export interface ActorSystem extends Ref<never> {
  readonly type: 'system';
  readonly name: string;
}

/**
 * nact's untyped run time, described once: the raw shapes `nact.ts` reads, for the modules of
 * src/messaging beside it only.
 */
import type { AnyRef } from './refs.ts';

export interface RawPath {
  readonly parts: readonly string[];
  toString(): string;
}
export interface RawRef extends AnyRef {
  readonly system: { readonly name: string };
  readonly path: RawPath;
  readonly name?: string;
}
export interface RawCtx {
  readonly self: RawRef;
  readonly name: string;
  readonly path: RawPath;
  readonly children: Map<string, RawRef>;
}
export type RawSupervisionCtx = RawCtx & { readonly parent?: RawRef } & Record<'resume' | 'reset', symbol>;
export interface RawProps {
  initialStateFunc: (ctx: RawCtx) => unknown;
  shutdownAfter?: number;
  onCrash: (message: unknown, error: unknown, ctx: RawSupervisionCtx) => symbol;
  afterStop: (state: unknown, ctx: RawCtx) => void;
}
export interface RawNact {
  start(options: { name: string }): RawRef;
  spawn(
    parent: RawRef,
    f: (state: unknown, message: unknown, ctx: RawCtx) => unknown,
    name: string | undefined,
    props: RawProps,
  ): RawRef;
  dispatch(ref: RawRef, message: unknown): void;
}
export interface RawActor {
  readonly name: string;
  readonly reference: RawRef;
  readonly path: RawPath;
  readonly children: Map<string, RawActor>;
  readonly mailbox: {
    readonly length: number;
    toArray(): readonly {
      readonly sender?: { readonly type?: string; readonly id?: unknown; readonly slot?: unknown };
    }[];
  };
  dispatch(message: unknown, sender: unknown): void;
  stop(): void;
}
export interface RawSystem {
  readonly name: string;
  readonly children: Map<string, RawActor>;
  stop(): void;
}
export interface RawSystemMap {
  find(systemName: string, ref?: RawRef): RawActor | RawSystem | undefined;
}

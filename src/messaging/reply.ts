/**
 * An actor's answer: a value, or an expected failure with a stable dotted code. Any request may
 * also fail with `internal` (a fault) or `unavailable` (a store that cannot be reached: retry
 * later); supervision sends those.
 */
export type Reply<T, Code extends string = never> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly code: Code | SystemCode; readonly message: string };

/** The failures every request may meet, whatever its protocol. */
export type SystemCode = 'internal' | 'unavailable';

export type Failure<Code extends string> = Extract<Reply<unknown, Code>, { ok: false }>;

export const ok = <T>(value: T): Reply<T, never> => ({ ok: true, value });

export const fail = <Code extends string>(code: Code | SystemCode, message: string): Failure<Code> => ({
  ok: false,
  code,
  message,
});

/** Makes a `switch` over a union exhaustive: a forgotten case fails to compile. */
export function assertNever(value: never): never {
  throw new Error(`unexpected message: ${JSON.stringify(value)}`);
}

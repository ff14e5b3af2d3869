/** TestKit-style probe: an actor that queues what it receives, so tests can pass it as `sender`. */
import { spawn, tell, type AnyRef, type Ref } from '../../src/messaging/nact.ts';

export interface Probe<M> {
  readonly ref: Ref<M>;
  /** The next message, or a rejection after `timeoutMs`. */
  expectMessage(timeoutMs?: number): Promise<M>;
  /** Resolves when nothing arrives for `windowMs`; rejects with the message that did arrive. */
  expectNoMessage(windowMs?: number): Promise<void>;
}

let counter = 0;

export function createProbe<M>(parent: AnyRef): Probe<M> {
  const queue: M[] = [];
  let waiter: ((message: M) => void) | undefined;
  const ref = spawn<null, M>(
    parent,
    (state, message) => {
      if (waiter) {
        const w = waiter;
        waiter = undefined;
        w(message);
      } else {
        queue.push(message);
      }
      return state;
    },
    { name: `probe-${++counter}`, initialState: () => null },
  );

  const next = (timeoutMs: number): Promise<M | undefined> => {
    const queued = queue.shift();
    if (queued !== undefined) return Promise.resolve(queued);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        waiter = undefined;
        resolve(undefined);
      }, timeoutMs);
      waiter = (message) => {
        clearTimeout(timer);
        resolve(message);
      };
    });
  };

  return {
    ref,
    async expectMessage(timeoutMs = 3000) {
      const message = await next(timeoutMs);
      if (message === undefined) throw new Error(`probe: no message within ${timeoutMs} ms`);
      return message;
    },
    async expectNoMessage(windowMs = 100) {
      const message = await next(windowMs);
      if (message !== undefined) throw new Error(`probe: unexpected message ${JSON.stringify(message)}`);
    },
  };
}

/**
 * Sends the message `request` builds to `ref`, with a new probe as its sender, and answers the
 * reply (the tests' one way to ask an actor, as HTTP's `ask` does).
 */
export function askWithProbe<M, R>(
  parent: AnyRef,
  ref: Ref<M>,
  request: (sender: Ref<R>) => M,
  timeoutMs = 5000,
): Promise<R> {
  const probe = createProbe<R>(parent);
  tell(ref, request(probe.ref));
  return probe.expectMessage(timeoutMs);
}

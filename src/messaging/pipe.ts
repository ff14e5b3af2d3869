import { tell, type AnyRef, type Ref } from './nact.ts';

/**
 * Akka's pipeTo: when `work` settles, its outcome comes back to the actor as a message, so the
 * actor never awaits slow work (it keeps serving other messages) and a failure still reaches
 * the actor's supervision when it handles the failure message.
 */
export function pipe<T, M>(
  work: Promise<T>,
  self: Ref<M>,
  onValue: (value: T) => M,
  onError: (error: unknown) => M,
): void {
  work.then(
    (value) => tell(self, onValue(value)),
    (error: unknown) => tell(self, onError(error)),
  );
}

/**
 * Work beside the mailbox that failed: the one failure message of every actor. Its handler throws
 * `error`, so that supervision answers `sender` (`unavailable` for a store that cannot be reached,
 * else `internal`) as it answers any crash.
 */
export interface WorkFailed {
  readonly type: 'WorkFailed';
  readonly error: unknown;
  readonly sender: AnyRef;
}

/**
 * Akka's pipeToSelf for an answer: the actor takes its next message while `work` runs; the answer
 * goes straight to `sender`, a failure back to the actor as {@link WorkFailed}. An answer already
 * at hand is told by the actor itself, with no promise.
 */
export function replyBeside<R>(self: Ref<WorkFailed>, sender: NoInfer<Ref<R>>, work: Promise<R>): void {
  work.then(
    (reply) => tell(sender, reply),
    (error: unknown) => tell(self, { type: 'WorkFailed', error, sender }),
  );
}

import { tell, type AnyRef, type Ref } from './nact.ts';
import { begin, end } from './work-in-flight.ts';

/**
 * Akka's pipeTo: when `work` settles, its outcome comes back to the actor as a message, so the
 * actor never awaits slow work (it keeps serving other messages) and a failure still reaches
 * the actor's supervision when it handles the failure message. The work counts against the
 * actor's bound until its outcome is in the mailbox (`work-in-flight.ts`).
 */
export function pipe<T, M>(
  work: Promise<T>,
  self: Ref<M>,
  onValue: (value: T) => M,
  onError: (error: unknown) => M,
): void {
  begin(self);
  work.then(
    (value) => {
      end(self);
      tell(self, onValue(value));
    },
    (error: unknown) => {
      end(self);
      tell(self, onError(error));
    },
  );
}

/**
 * Work beside the mailbox that failed: the one failure message of every actor. Its handler throws
 * `error`, so that supervision answers `sender` (`unavailable` for a store that cannot be reached,
 * else `internal`) as it answers any crash. Work that answers no one (housekeeping) has no sender:
 * its failure is only reported.
 */
export interface WorkFailed {
  readonly type: 'WorkFailed';
  readonly error: unknown;
  readonly sender: AnyRef | undefined;
}

/**
 * Akka's pipeToSelf for an answer, and the one way an actor works beside its mailbox: the actor
 * takes its next message while `work` runs; the answer goes straight to `sender`, a failure back to
 * the actor as {@link WorkFailed}. Until it settles the work counts against the actor's bound
 * (`actors.mailbox-limit`, with the messages waiting in its mailbox): past it, asks are refused at
 * once (`reply-slots.ts`). `self` is the actor's own `ctx.self`, which the count is kept under.
 */
export function replyBeside<R>(self: Ref<WorkFailed>, sender: NoInfer<Ref<R>> | undefined, work: Promise<R>): void {
  begin(self);
  work.then(
    (reply) => {
      end(self);
      if (sender) tell(sender, reply);
    },
    (error: unknown) => {
      end(self);
      tell(self, { type: 'WorkFailed', error, sender });
    },
  );
}

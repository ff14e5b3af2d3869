import { tell, type Ref } from './nact.ts';

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

import { spawn, tell, type CrashPolicy, type Ctx, type Ref } from '../../src/messaging/nact.ts';
import { isAlive } from '../../src/messaging/introspection.ts';
import { ok } from '../../src/messaging/reply.ts';
import { refuseUnknown } from '../../src/messaging/supervision.ts';
import { spawnActivityActor, type ActivityActorDeps } from './actor.ts';
import { examples, type RouterCommand } from './protocol.ts';

export type { ActivityActorDeps };

/**
 * The activity router: one ActivityActor per user id (OTP's simple_one_for_one). It spawns the
 * user's actor on its first message, forwards later messages to it (each carries its original
 * sender), and spawns it again after an idle stop.
 */
export function spawnActivityRouter(parent: Ref<never>, deps: ActivityActorDeps): Ref<RouterCommand> {
  /**
   * nact drops a message sent to an actor that has stopped, so the child is looked up and checked
   * in the same synchronous step as the send: an idle stop cannot come in between (its timer only
   * runs while the child's mailbox is empty, and a send clears it).
   */
  const childFor = (userId: string, ctx: Ctx<RouterCommand>): Ref<RouterCommand> | undefined => {
    const child = ctx.child(userId);
    return child && isAlive(child) ? (child as Ref<RouterCommand>) : undefined;
  };

  const route = (msg: RouterCommand, ctx: Ctx<RouterCommand>): void => {
    switch (msg.type) {
      case 'Record':
      case 'History':
        return tell(childFor(msg.userId, ctx) ?? spawnActivityActor(ctx.self, msg.userId, deps), msg);
      case 'Forget': {
        const child = childFor(msg.userId, ctx);
        return child ? tell(child, msg) : tell(msg.sender, ok(null));
      }
      default:
        return refuseUnknown(msg, 'the activity router', Object.keys(examples));
    }
  };

  const onCrash: CrashPolicy = deps.crashPolicy();
  return spawn<null, RouterCommand>(
    parent,
    (state, msg, ctx) => {
      route(msg, ctx);
      return state;
    },
    { name: 'activity', initialState: () => null, onCrash },
  );
}

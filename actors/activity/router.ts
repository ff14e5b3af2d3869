import { spawn, stop, tell, type CrashPolicy, type Ctx, type Ref } from '../../src/messaging/nact.ts';
import { isAlive, mailboxSize } from '../../src/messaging/introspection.ts';
import { ok } from '../../src/messaging/reply.ts';
import { refuseUnknown } from '../../src/messaging/supervision.ts';
import { spawnActivityActor, type ActivityActorDeps } from './actor.ts';
import type { ObjectIdString } from '../../src/ids.ts';
import { examples, type RouterCommand } from './protocol.ts';

export type { ActivityActorDeps };

const DEFAULT_MAX_LIVE = 1000;

/**
 * The activity router: one ActivityActor per user id (OTP's simple_one_for_one). It spawns the
 * user's actor on its first message, forwards later messages to it (each carries its original
 * sender), and spawns it again after an idle stop. At most `maxLive` children are alive: before
 * spawning one more, the least recently used idle children are stopped (a child with work queued
 * is left alone; the router's bounded mailbox bounds how many can be busy).
 */
export function spawnActivityRouter(parent: Ref<never>, deps: ActivityActorDeps): Ref<RouterCommand> {
  const maxLive = deps.maxLive ?? DEFAULT_MAX_LIVE;
  /**
   * The user ids of the children, least recently used first (a Set keeps insertion order). Ids
   * only, never refs: an entry of a child that stopped by itself holds nothing of it, and is
   * dropped when room is next made.
   */
  const recent = new Set<string>();
  const makeRoom = (ctx: Ctx<RouterCommand>): void => {
    for (const userId of recent) {
      if (recent.size < maxLive) return;
      const child = childFor(userId, ctx);
      if (child && mailboxSize(child) > 0) continue;
      if (child) stop(child);
      recent.delete(userId);
    }
  };
  const forward = (msg: Extract<RouterCommand, { userId: ObjectIdString }>, ctx: Ctx<RouterCommand>): void => {
    let child = childFor(msg.userId, ctx);
    if (!child) {
      makeRoom(ctx);
      child = spawnActivityActor(ctx.self, msg.userId, deps);
    }
    recent.delete(msg.userId);
    recent.add(msg.userId);
    tell(child, msg);
  };

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
        return forward(msg, ctx);
      case 'Forget': {
        const child = childFor(msg.userId, ctx);
        return child ? tell(child, msg) : tell(msg.sender, ok(null));
      }
      default:
        return refuseUnknown(msg, 'the activity router', Object.keys(examples));
    }
  };

  const onCrash: CrashPolicy = deps.onCrash();
  return spawn<null, RouterCommand>(
    parent,
    (state, msg, ctx) => {
      route(msg, ctx);
      return state;
    },
    // A turn per message, as its children take theirs: a burst for one user then waits here, in the
    // mailbox that actors.mailbox-limit bounds, not in the user's actor, which nothing bounds.
    { name: 'activity', initialState: () => null, onCrash, messagesPerTurn: 1 },
  );
}

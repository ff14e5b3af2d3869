import { newId } from '../../src/ids.ts';
import { ask, type Request } from '../../src/messaging/ask.ts';
import { spawnAsync, tell, type CrashPolicy, type Ctx, type Ref } from '../../src/messaging/nact.ts';
import { pipe, replyBeside, type WorkFailed } from '../../src/messaging/pipe.ts';
import { fail, ok, type Reply } from '../../src/messaging/reply.ts';
import { refuseUnknown } from '../../src/messaging/supervision.ts';
import type { UserStore, WriteResult } from '../../src/stores/user-store.ts';
import * as Activity from '../activity/protocol.ts';
import { examples, type Command, type ErrorCode, type User } from './protocol.ts';

export interface UserActorDeps {
  readonly store: UserStore;
  /** The activity router: USER_CREATED and USER_UPDATED are recorded there, and Forget on delete. */
  readonly activity: Ref<Activity.RouterCommand>;
  readonly askTimeoutMs: number;
  readonly onCrash: CrashPolicy;
  readonly now?: () => number;
}

type Post = Extract<Command, { type: 'Post' }>;
type Put = Extract<Command, { type: 'Put' }>;
type Delete = Extract<Command, { type: 'Delete' }>;

/** A caller's answer held back until its activity is stored (the `sender` is where supervision looks). */
interface Held {
  readonly sender: Ref<Reply<User, never>>;
  readonly answer: Reply<User, never>;
}

/** How the activity router answered a notification this actor sent it (off the request path). */
type Internal =
  | ({ readonly type: 'Noted'; readonly what: string; readonly reply: Reply<unknown, string> } & Partial<Held>)
  | ({ readonly type: 'NoteFailed'; readonly what: string; readonly error: unknown } & Partial<Held>);

/** A read beside the mailbox that failed comes back as `WorkFailed`: supervision answers its sender. */
type Msg = Command | Internal | WorkFailed;

const FAILURES: Readonly<Record<Extract<WriteResult, { ok: false }>['reason'], ErrorCode>> = {
  email_taken: 'user.email_taken',
  not_found: 'user.not_found',
  version_conflict: 'user.version_conflict',
};

/** How often a PUT without If-Match is applied again when other processes keep changing the user. */
const MAX_PUT_ATTEMPTS = 5;

const notFound = (id: string) => fail('user.not_found', `No user with id ${id}`);

function failureOf(result: Extract<WriteResult, { ok: false }>, id: string, email: string | undefined) {
  const code = FAILURES[result.reason];
  if (code === 'user.email_taken') return fail(code, `The email ${email ?? ''} is taken`);
  if (code === 'user.version_conflict') return fail(code, 'The user was changed meanwhile; read it again');
  return notFound(id);
}

export function spawnUserActor(parent: Ref<never>, deps: UserActorDeps): Ref<Command> {
  const iso = (): string => new Date((deps.now ?? Date.now)()).toISOString();

  /**
   * Asks the activity router without waiting for it (the actor takes its next message meanwhile).
   * With `held`, the caller's answer goes out only once the activity is stored: an acknowledged
   * write never lacks its activity, even after a crash, and a caller that reads after its write
   * sees it. A failure reaches supervision, which answers the held caller with `internal`.
   */
  const note = (
    ctx: Ctx<Msg>,
    what: string,
    request: Request<Activity.RouterCommand, Reply<unknown, string>>,
    held?: Held,
  ): void => {
    // Already admitted work: a full router mailbox must not lose the user's activity.
    pipe(
      ask(deps.activity, request, deps.askTimeoutMs, { ignoreMailboxLimit: true }),
      ctx.self,
      (reply): Msg => ({ type: 'Noted', what, reply, ...held }),
      (error): Msg => ({ type: 'NoteFailed', what, error, ...held }),
    );
  };

  const onNoted = (msg: Extract<Internal, { type: 'Noted' }>): void => {
    // A user deleted right after the write has nothing left to record.
    if (!msg.reply.ok && msg.reply.code !== 'user.not_found')
      throw new Error(`${msg.what} was not recorded: ${msg.reply.message}`);
    if (msg.sender && msg.answer) tell(msg.sender, msg.answer);
  };

  const onPost = async (msg: Post, ctx: Ctx<Msg>): Promise<void> => {
    const at = iso();
    const result = await deps.store.insert({
      id: newId(),
      name: msg.name,
      email: msg.email,
      createdAt: at,
      updatedAt: at,
    });
    if (!result.ok) return tell(msg.sender, fail('user.email_taken', `The email ${msg.email} is taken`));
    note(ctx, Activity.USER_CREATED, Activity.record({ userId: result.user.id, type: Activity.USER_CREATED }), {
      sender: msg.sender,
      answer: ok(result.user),
    });
  };

  /**
   * Only fields whose value differs count as changes; a PUT that changes nothing keeps the version.
   * Without `expectedVersion`, a change committed by another process between the read and the
   * conditional write is no conflict for the caller: the PUT is applied again on the new version.
   */
  const onPut = async (msg: Put, ctx: Ctx<Msg>, attempt = 1): Promise<void> => {
    const current = await deps.store.find(msg.id);
    if (!current) return tell(msg.sender, notFound(msg.id));
    if (msg.expectedVersion !== undefined && msg.expectedVersion !== current.version) {
      return tell(msg.sender, failureOf({ ok: false, reason: 'version_conflict' }, msg.id, undefined));
    }
    const name = msg.name !== undefined && msg.name !== current.name ? msg.name : undefined;
    const email = msg.email !== undefined && msg.email !== current.email ? msg.email : undefined;
    const fields = [...(name === undefined ? [] : ['name']), ...(email === undefined ? [] : ['email'])];
    if (fields.length === 0) return tell(msg.sender, ok(current));
    const result = await deps.store.update(msg.id, current.version, { name, email, updatedAt: iso() });
    if (
      !result.ok &&
      result.reason === 'version_conflict' &&
      msg.expectedVersion === undefined &&
      attempt < MAX_PUT_ATTEMPTS
    )
      return onPut(msg, ctx, attempt + 1);
    if (!result.ok) return tell(msg.sender, failureOf(result, msg.id, email));
    note(
      ctx,
      Activity.USER_UPDATED,
      Activity.record({ userId: msg.id, type: Activity.USER_UPDATED, detail: { fields } }),
      { sender: msg.sender, answer: ok(result.user) },
    );
  };

  /** The store deletes the activity with the user; the router then stops the user's actor. */
  const onDelete = async (msg: Delete, ctx: Ctx<Msg>): Promise<void> => {
    const deleted = await deps.store.delete(msg.id);
    if (!deleted) return tell(msg.sender, notFound(msg.id));
    note(ctx, 'Forget', Activity.forget({ userId: msg.id }));
    tell(msg.sender, ok(deleted));
  };

  /** Read-only, so not awaited: the user goes straight to the sender, a failure back here. */
  const onGet = (msg: Extract<Command, { type: 'Get' }>, ctx: Ctx<Msg>): void =>
    replyBeside(
      ctx.self,
      msg.sender,
      deps.store.find(msg.id).then((user) => (user ? ok(user) : notFound(msg.id))),
    );

  const handle = async (msg: Msg, ctx: Ctx<Msg>): Promise<void> => {
    switch (msg.type) {
      case 'Get':
        return onGet(msg, ctx);
      case 'Post':
        return onPost(msg, ctx);
      case 'Put':
        return onPut(msg, ctx);
      case 'Delete':
        return onDelete(msg, ctx);
      case 'Noted':
        return onNoted(msg);
      case 'NoteFailed':
      case 'WorkFailed':
        throw msg.error;
      default:
        return refuseUnknown(msg, 'UserActor', Object.keys(examples));
    }
  };

  return spawnAsync<null, Msg>(
    parent,
    async (state, msg, ctx) => {
      await handle(msg, ctx);
      return state;
    },
    { name: 'users', initialState: () => null, onCrash: deps.onCrash },
  );
}

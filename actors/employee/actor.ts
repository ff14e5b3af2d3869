import { spawn, tell, type CrashPolicy, type Ctx, type Ref } from '../../src/messaging/nact.ts';
import { replyBeside, type WorkFailed } from '../../src/messaging/pipe.ts';
import { assertNever, fail, ok } from '../../src/messaging/reply.ts';
import { refuseUnknown } from '../../src/messaging/supervision.ts';
import type { EmployeeRecord, EmployeeStore } from '../../src/stores/employee-store.ts';
import {
  examples,
  type Command,
  type CreateReply,
  type DeleteReply,
  type GetReply,
  type SearchReply,
  type UpdateReply,
} from './protocol.ts';

export interface EmployeeActorDeps {
  readonly store: EmployeeStore;
  readonly onCrash: CrashPolicy;
  readonly now?: () => number;
}

/** A store call that failed comes back as `WorkFailed`: supervision answers its sender. */
type Msg = Command | WorkFailed;

const notFound = (id: string) => fail('employee.not_found', `No employee with id ${id}`);

/*
 * Store calls run concurrently (the store is the truth and updates are versioned), so the actor
 * does not wait for one before taking the next message: each is answered beside the mailbox
 * (`replyBeside`); a store that reads synchronously (SQLite) answers a Get at once, without a
 * promise, and a read that throws then crashes the message it was made for, which supervision
 * answers as it answers a `WorkFailed`.
 */
export function spawnEmployeeActor(parent: Ref<never>, deps: EmployeeActorDeps): Ref<Command> {
  const { store } = deps;
  const at = (): string => new Date((deps.now ?? Date.now)()).toISOString();

  const onCreate = async (msg: Extract<Command, { type: 'Create' }>): Promise<CreateReply> =>
    ok(await store.insert(msg.employee, at()));

  const found = (id: string, record: EmployeeRecord | undefined): GetReply => (record ? ok(record) : notFound(id));
  /**
   * The read on every GET of a record: answered in this turn when the store reads synchronously
   * (a throw then crashes the message, which supervision answers), else beside the mailbox.
   */
  const onGet = (msg: Extract<Command, { type: 'Get' }>, self: Ref<Msg>): void => {
    const { findByIdNow } = store;
    if (findByIdNow) return tell(msg.sender, found(msg.id, findByIdNow(msg.id)));
    replyBeside(
      self,
      msg.sender,
      store.findById(msg.id).then((record) => found(msg.id, record)),
    );
  };

  const onSearch = async (msg: Extract<Command, { type: 'Search' }>): Promise<SearchReply> =>
    ok(await store.search(msg.criteria));

  const onUpdate = async (msg: Extract<Command, { type: 'Update' }>): Promise<UpdateReply> => {
    const outcome = await store.update(msg.id, msg.changes, msg.expectedVersion, at());
    switch (outcome.status) {
      case 'updated':
        return ok(outcome.record);
      case 'not_found':
        return notFound(msg.id);
      case 'version_conflict':
        return fail(
          'employee.version_conflict',
          `Employee ${msg.id} is at version ${outcome.version}, not ${msg.expectedVersion}`,
        );
      default:
        return assertNever(outcome);
    }
  };

  const onDelete = async (msg: Extract<Command, { type: 'Delete' }>): Promise<DeleteReply> =>
    (await store.delete(msg.id)) ? ok({ id: msg.id }) : notFound(msg.id);

  const handle = (msg: Msg, ctx: Ctx<Msg>): void => {
    switch (msg.type) {
      case 'Create':
        return replyBeside(ctx.self, msg.sender, onCreate(msg));
      case 'Get':
        return onGet(msg, ctx.self);
      case 'Search':
        return replyBeside(ctx.self, msg.sender, onSearch(msg));
      case 'Update':
        return replyBeside(ctx.self, msg.sender, onUpdate(msg));
      case 'Delete':
        return replyBeside(ctx.self, msg.sender, onDelete(msg));
      case 'WorkFailed':
        throw msg.error;
      default:
        return refuseUnknown(msg, 'EmployeeActor', Object.keys(examples));
    }
  };

  return spawn<null, Msg>(
    parent,
    (state, msg, ctx) => {
      handle(msg, ctx);
      return state;
    },
    {
      name: 'employees',
      initialState: () => null,
      onCrash: deps.onCrash,
    },
  );
}

/** Starts the actor tree and hands out the named refs; stops it bottom-up. */
import { randomBytes } from 'node:crypto';
import { spawnAccountActor, type AccountActorDeps } from '../../actors/accounts/actor.ts';
import type * as Accounts from '../../actors/accounts/protocol.ts';
import { spawnTokenActor, type TokenActorDeps } from '../../actors/token/actor.ts';
import type * as Token from '../../actors/token/protocol.ts';
import { spawnActivityRouter, type ActivityActorDeps } from '../../actors/activity/router.ts';
import type * as Activity from '../../actors/activity/protocol.ts';
import { spawnUserActor, type UserActorDeps } from '../../actors/user/actor.ts';
import type * as User from '../../actors/user/protocol.ts';
import { spawnEmployeeActor, type EmployeeActorDeps } from '../../actors/employee/actor.ts';
import type * as Employee from '../../actors/employee/protocol.ts';
import type { Logger } from '../logger.ts';
import { startSystem, stopSystem, type ActorSystem, type CrashPolicy, type Ref } from '../messaging/nact.ts';
import { limitMailbox } from '../messaging/reply-slots.ts';
import { defaultBudget, replyThenResume, type FailureOf } from '../messaging/supervision.ts';
import { StoreUnavailableError } from '../stores/store-unavailable.ts';

/** A store that cannot be reached is `unavailable` to the sender (HTTP 503), anything else `internal`. */
export const failureOf: FailureOf = (error) => (error instanceof StoreUnavailableError ? 'unavailable' : 'internal');

export interface Actors {
  readonly system: ActorSystem;
  readonly token: Ref<Token.Command>;
  readonly accounts: Ref<Accounts.Command>;
  readonly users: Ref<User.Command>;
  /** The activity router: one ActivityActor per user id below it. */
  readonly activity: Ref<Activity.RouterCommand>;
  /** Spawned when its deps are given (the employee service is on). */
  readonly employees: Ref<Employee.Command> | undefined;
  stop(): void;
}

export interface ActorDeps {
  readonly token: Omit<TokenActorDeps, 'onCrash'>;
  readonly accounts: Omit<AccountActorDeps, 'onCrash'>;
  readonly users: Omit<UserActorDeps, 'onCrash' | 'activity'>;
  readonly activity: Omit<ActivityActorDeps, 'onCrash'>;
  readonly employees?: Omit<EmployeeActorDeps, 'onCrash'> | undefined;
  readonly logger: Logger;
  /** Asks to a top-level actor with this many waiting messages are refused at once; unset: unbounded. */
  readonly mailboxLimit?: number | undefined;
}

export function startActors(deps: ActorDeps): Actors {
  /** Each top-level actor's start, by name: the root's decision for one that escalated is to start it again. */
  const starts = new Map<string, () => void>();
  const system = startSystem(`troupe-${randomBytes(4).toString('hex')}`, (name) => {
    deps.logger.error({ actor: name }, 'actor stopped past its restart budget; started again');
    starts.get(name)?.();
  });
  const report = (error: unknown, path: string, decision: string): void => {
    if (error instanceof StoreUnavailableError)
      deps.logger.warn({ actor: path, err: error.message }, 'a store cannot be reached');
    else deps.logger.error({ err: error, actor: path, decision }, 'actor crashed');
  };
  const supervised = (): CrashPolicy => replyThenResume(report, defaultBudget, failureOf);
  /**
   * Spawns a top-level actor, and again (with a new policy, its mailbox bound and closures new)
   * whenever it escalates. Refs find an actor by its path, so the refs handed out reach the new one.
   */
  const top = <M>(name: string, spawnIt: (onCrash: CrashPolicy) => Ref<M>): Ref<M> => {
    const start = (): Ref<M> => {
      const ref = spawnIt(supervised());
      if (deps.mailboxLimit !== undefined) limitMailbox(ref, deps.mailboxLimit);
      return ref;
    };
    starts.set(name, start);
    return start();
  };
  const token = top('token', (onCrash) => spawnTokenActor(system, { ...deps.token, onCrash }));
  const accounts = top('accounts', (onCrash) => spawnAccountActor(system, { ...deps.accounts, onCrash }));
  const activity = top('activity', () => spawnActivityRouter(system, { ...deps.activity, onCrash: supervised }));
  const users = top('users', (onCrash) => spawnUserActor(system, { ...deps.users, activity, onCrash }));
  const employeeDeps = deps.employees;
  const employees =
    employeeDeps && top('employees', (onCrash) => spawnEmployeeActor(system, { ...employeeDeps, onCrash }));
  return { system, token, accounts, users, activity, employees, stop: () => stopSystem(system) };
}

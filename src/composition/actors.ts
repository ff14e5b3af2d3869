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
import { StoreUnavailableError } from '../store-unavailable.ts';

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
  readonly activity: Omit<ActivityActorDeps, 'crashPolicy'>;
  readonly employees?: Omit<EmployeeActorDeps, 'onCrash'> | undefined;
  readonly logger: Logger;
  /** Asks to a top-level actor with this many waiting messages are refused at once; unset: unbounded. */
  readonly mailboxLimit?: number | undefined;
}

export function startActors(deps: ActorDeps): Actors {
  const system = startSystem(`troupe-${randomBytes(4).toString('hex')}`);
  const report = (error: unknown, path: string, decision: string): void => {
    if (error instanceof StoreUnavailableError)
      deps.logger.warn({ actor: path, err: error.message }, 'a store cannot be reached');
    else deps.logger.error({ err: error, actor: path, decision }, 'actor crashed');
  };
  const supervised = (): CrashPolicy => replyThenResume(report, defaultBudget, failureOf);
  const token = spawnTokenActor(system, { ...deps.token, onCrash: supervised() });
  const accounts = spawnAccountActor(system, { ...deps.accounts, onCrash: supervised() });
  const activity = spawnActivityRouter(system, { ...deps.activity, crashPolicy: supervised });
  const users = spawnUserActor(system, { ...deps.users, activity, onCrash: supervised() });
  const employees = deps.employees && spawnEmployeeActor(system, { ...deps.employees, onCrash: supervised() });
  if (deps.mailboxLimit !== undefined) {
    for (const ref of [token, accounts, users, activity, employees]) if (ref) limitMailbox(ref, deps.mailboxLimit);
  }
  return { system, token, accounts, users, activity, employees, stop: () => stopSystem(system) };
}

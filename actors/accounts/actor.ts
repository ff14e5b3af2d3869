import { secondsClock } from '../../src/security/epoch.ts';
import { spawn, tell, type AnyRef, type CrashPolicy, type Ctx, type Ref } from '../../src/messaging/nact.ts';
import { ok } from '../../src/messaging/reply.ts';
import { refuseUnknown } from '../../src/messaging/supervision.ts';
import { createLogins, type LoginDeps } from '../../src/security/logins.ts';
import { createAccountAdmin, type AccountDeps } from './administration.ts';
import { examples, type AccountView, type Command } from './protocol.ts';

export interface AccountActorDeps extends AccountDeps, LoginDeps {
  readonly onCrash: CrashPolicy;
  /** Epoch milliseconds; the clock of the logins it lists and ends. */
  readonly now?: () => number;
}

/** Work beside the mailbox that failed: a crash here, so that supervision answers its sender. */
type WorkFailed = { readonly type: 'WorkFailed'; readonly error: unknown; readonly sender: AnyRef };

type Msg = Command | WorkFailed;

/** Every account with its roles, as of the store's change count `count`. */
interface Listing {
  readonly count: number;
  readonly withHashes: readonly AccountView[];
  readonly withoutHashes: readonly AccountView[];
}

/**
 * AccountActor: account administration, the original service's listing, each account's logins and
 * security version. Every operation runs beside the mailbox (the store's transactions, BCrypt on
 * the worker pool), its answer straight to the sender, a failure back here as `WorkFailed`.
 */
export function spawnAccountActor(parent: Ref<never>, deps: AccountActorDeps): Ref<Command> {
  const now = deps.now ?? Date.now;
  const { revokeLogin } = createLogins(deps, secondsClock(now));
  const administer = createAccountAdmin(deps, (loginId) => revokeLogin(loginId), now);

  /**
   * The listing as of a change count of the store: kept between requests, and used while the
   * store's count (moved by every change to accounts or roles, in any process) has not moved. The
   * count is read before the listing, so a listing is never newer than the count it is kept under.
   */
  let listing: Listing | undefined;
  const currentListing = async (): Promise<Listing> => {
    const count = await deps.credentials.changeCount();
    if (listing?.count === count) return listing;
    // The original service's listing: no `enabled` nor security version (administration shows `enabled`).
    const accounts = (await deps.credentials.listAll()).map(
      ({ enabled: _, securityVersion: __, ...account }) => account,
    );
    const fresh: Listing = {
      count,
      withHashes: Object.freeze(accounts),
      withoutHashes: Object.freeze(accounts.map(({ password: _, ...account }) => account)),
    };
    if (!listing || listing.count !== count) listing = fresh;
    return fresh;
  };

  /** Read-only, so not awaited: the listing goes straight to the sender, a failure back here. */
  const onListAccounts = (msg: Extract<Command, { type: 'ListUsers' }>, ctx: Ctx<Msg>): void => {
    currentListing().then(
      (l) => tell(msg.sender, ok(msg.includePasswordHash ? l.withHashes : l.withoutHashes)),
      (error: unknown) => tell(ctx.self, { type: 'WorkFailed', error, sender: msg.sender }),
    );
  };

  const handle = (msg: Msg, ctx: Ctx<Msg>): void => {
    switch (msg.type) {
      case 'ListUsers':
        return onListAccounts(msg, ctx);
      case 'FindAccounts':
      case 'GetAccount':
      case 'CreateAccount':
      case 'UpdateAccount':
      case 'SetPassword':
      case 'DeleteAccount':
      case 'ListLogins':
      case 'EndLogins':
      case 'ClearLockout':
      case 'ListRoles':
      case 'CreateRole':
      case 'ChangeOwnPassword':
        return administer(msg, ctx.self);
      case 'WorkFailed':
        throw msg.error;
      default:
        return refuseUnknown(msg, 'AccountActor', Object.keys(examples));
    }
  };

  return spawn<null, Msg>(
    parent,
    (state, msg, ctx) => {
      handle(msg, ctx);
      return state;
    },
    { name: 'accounts', initialState: () => null, onCrash: deps.onCrash },
  );
}

import { secondsClock } from '../../src/security/epoch.ts';
import { spawn, type CrashPolicy, type Ctx, type Ref } from '../../src/messaging/nact.ts';
import { replyBeside, type WorkFailed } from '../../src/messaging/pipe.ts';
import type { MessageOf } from '../../src/messaging/ask.ts';
import { ok } from '../../src/messaging/reply.ts';
import { refuseUnknown } from '../../src/messaging/supervision.ts';
import { createLogins, type LoginDeps } from '../../src/security/logins.ts';
import { createAccountAdmin, type AccountDeps } from './administration.ts';
import { createProfiles } from './profile.ts';
import { examples, type AccountView, type AccountsReply, type Command } from './protocol.ts';

export interface AccountActorDeps extends AccountDeps, LoginDeps {
  readonly onCrash: CrashPolicy;
  /** Epoch milliseconds; the clock of the logins it lists and ends. */
  readonly now?: () => number;
}

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
  const admin = createAccountAdmin(deps, (loginId) => revokeLogin(loginId), now);
  const profiles = createProfiles(deps);

  /**
   * The listing as of a change count of the store: kept between requests, and used while the
   * store's count (moved by every change to accounts or roles, in any process) has not moved. The
   * count is read before the listing, so a listing is never newer than the count it is kept under.
   */
  let listing: Listing | undefined;
  const currentListing = async (): Promise<Listing> => {
    const count = await deps.accounts.changeCount();
    if (listing?.count === count) return listing;
    // The original service's listing: no `enabled`, email, security version nor profile time
    // (administration shows `enabled` and the email).
    const accounts = (await deps.accounts.listAll()).map(
      ({ enabled: _, email: __, securityVersion: ___, updatedAt: ____, ...account }) => account,
    );
    const fresh: Listing = {
      count,
      withHashes: Object.freeze(accounts),
      withoutHashes: Object.freeze(accounts.map(({ password: _, ...account }) => account)),
    };
    if (!listing || listing.count !== count) listing = fresh;
    return fresh;
  };

  const onListAccounts = async (msg: MessageOf<Command, 'ListAccounts'>): Promise<AccountsReply> => {
    const l = await currentListing();
    return ok(msg.includePasswordHash ? l.withHashes : l.withoutHashes);
  };

  const handle = (msg: Msg, ctx: Ctx<Msg>): void => {
    switch (msg.type) {
      case 'ListAccounts':
        return replyBeside(ctx.self, msg.sender, onListAccounts(msg));
      case 'FindAccounts':
        return replyBeside(ctx.self, msg.sender, admin.onFindAccounts(msg));
      case 'GetAccount':
        return replyBeside(ctx.self, msg.sender, admin.onGetAccount(msg));
      case 'CreateAccount':
        return replyBeside(ctx.self, msg.sender, admin.onCreateAccount(msg));
      case 'UpdateAccount':
        return replyBeside(ctx.self, msg.sender, admin.onUpdateAccount(msg));
      case 'SetPassword':
        return replyBeside(ctx.self, msg.sender, admin.onSetPassword(msg));
      case 'DeleteAccount':
        return replyBeside(ctx.self, msg.sender, admin.onDeleteAccount(msg));
      case 'ListLogins':
        return replyBeside(ctx.self, msg.sender, admin.onListLogins(msg));
      case 'EndLogins':
        return replyBeside(ctx.self, msg.sender, admin.onEndLogins(msg));
      case 'ClearLockout':
        return replyBeside(ctx.self, msg.sender, admin.onClearLockout(msg));
      case 'ListRoles':
        return replyBeside(ctx.self, msg.sender, admin.onListRoles());
      case 'CreateRole':
        return replyBeside(ctx.self, msg.sender, admin.onCreateRole(msg));
      case 'ChangeOwnPassword':
        return replyBeside(ctx.self, msg.sender, admin.onChangeOwnPassword(msg));
      case 'GetProfile':
        return replyBeside(ctx.self, msg.sender, profiles.onGetProfile(msg));
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

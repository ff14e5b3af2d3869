import { spawn, tell, type CrashPolicy, type Ctx, type Ref } from '../../src/messaging/nact.ts';
import { ok } from '../../src/messaging/reply.ts';
import { refuseUnknown } from '../../src/messaging/supervision.ts';
import { createCodes, type CodeDeps } from './codes.ts';
import { createCredentialChecks, type Completion, type CredentialCheckDeps } from './credential-checks.ts';
import { createGrants, type GrantDeps } from './grants.ts';
import { createInspection, type InspectionDeps } from './inspection.ts';
import { createLogins, type LoginDeps } from './logins.ts';
import { createAccountAdmin, type AccountDeps } from './accounts.ts';
import { createRefresh, type RefreshDeps } from './refresh.ts';
import { examples, isAccountCommand, type AccountView, type Command } from './protocol.ts';

export interface TokenActorDeps
  extends GrantDeps, CredentialCheckDeps, LoginDeps, CodeDeps, RefreshDeps, InspectionDeps, AccountDeps {
  readonly onCrash: CrashPolicy;
}

/** The credential checks' verdicts (BCrypt on the worker pool), and housekeeping. */
type Internal = Completion | { readonly type: 'Purge' };

type Msg = Command | Internal;

type Of<T extends Msg['type']> = Extract<Msg, { type: T }>;

/** Every account with its roles, as of the store's change count `count`. */
interface Listing {
  readonly count: number;
  readonly withHashes: readonly AccountView[];
  readonly withoutHashes: readonly AccountView[];
}

const PURGE_EVERY_MS = 3_600_000;

export function spawnTokenActor(parent: Ref<never>, deps: TokenActorDeps): Ref<Command> {
  const now = deps.now ?? Date.now;
  const seconds = (): number => Math.floor(now() / 1000);
  const grants = createGrants(deps);

  const { revokeLogin, revokeAccessToken, endOldestLogins } = createLogins(deps, seconds);
  const codes = createCodes(deps, grants, seconds, (loginId) => revokeLogin(loginId), endOldestLogins);
  const checks = createCredentialChecks(deps, grants, endOldestLogins, codes.issue);
  const { onRefresh } = createRefresh(deps, grants, seconds, revokeLogin);
  const { onRevoke, onIntrospect } = createInspection(deps, now, revokeLogin, revokeAccessToken);
  const administer = createAccountAdmin(deps, (loginId) => revokeLogin(loginId), now);

  const onClientCredentials = async (msg: Of<'ClientCredentials'>): Promise<void> => {
    const client = grants.checkGrant(msg.clientId, 'client_credentials', msg.scope);
    if ('ok' in client) return tell(msg.sender, client);
    tell(msg.sender, ok(await grants.clientToken(client, msg.scope ?? client.scopes)));
  };

  /**
   * The listing as of a change count of the store: kept between requests, and used while the
   * store's count (moved by every change to users or roles, in any process) has not moved. The
   * count is read before the listing, so a listing is never newer than the count it is kept under.
   */
  let listing: Listing | undefined;
  const currentListing = async (): Promise<Listing> => {
    const count = await deps.credentials.changeCount();
    if (listing?.count === count) return listing;
    // The original service's listing: no `enabled` (account administration shows it).
    const users = (await deps.credentials.listAll()).map(({ enabled: _, securityVersion: __, ...account }) => account);
    const fresh: Listing = {
      count,
      withHashes: Object.freeze(users),
      withoutHashes: Object.freeze(users.map(({ password: _, ...user }) => user)),
    };
    if (!listing || listing.count !== count) listing = fresh;
    return fresh;
  };

  /** Read-only, so not awaited: the listing goes straight to the sender, a failure back here. */
  const onListAccounts = (msg: Of<'ListUsers'>, ctx: Ctx<Msg>): void => {
    currentListing().then(
      (l) => tell(msg.sender, ok(msg.includePasswordHash ? l.withHashes : l.withoutHashes)),
      (error: unknown) => tell(ctx.self, { type: 'WorkFailed', error, sender: msg.sender }),
    );
  };

  const onPurge = async (): Promise<void> => {
    await deps.refreshTokens.purgeExpired(seconds());
    await deps.codes.purgeExpired(seconds());
    await deps.denylist.purge(seconds());
  };

  const handle = async (msg: Msg, ctx: Ctx<Msg>): Promise<void> => {
    switch (msg.type) {
      case 'AuthenticateClient':
        return checks.onAuthenticateClient(msg, ctx.self);
      case 'ClientChecked':
        return checks.onClientChecked(msg);
      case 'IssueToken':
      case 'Authorize':
        return checks.onIssueToken(msg, ctx.self);
      case 'PasswordChecked':
        return checks.onPasswordChecked(msg);
      case 'RedeemCode':
        return codes.onRedeemCode(msg);
      case 'Refresh':
        return onRefresh(msg);
      case 'ClientCredentials':
        return onClientCredentials(msg);
      case 'Revoke':
        return onRevoke(msg);
      case 'Introspect':
        return onIntrospect(msg);
      case 'ListUsers':
        return onListAccounts(msg, ctx);
      case 'WorkFailed':
        throw msg.error;
      case 'Purge':
        return onPurge();
      default:
        // Account administration (account-protocol.ts); what is left is no message of this protocol.
        if (isAccountCommand(msg)) return administer(msg, ctx.self);
        return refuseUnknown(msg, 'TokenActor', Object.keys(examples));
    }
  };

  // One purge timer for the actor's life, kept out of its state: a supervised reset re-runs
  // initialState (and would start another timer each time) but never afterStop.
  const ref = spawn<null, Msg>(
    parent,
    async (state, msg, ctx) => {
      await handle(msg, ctx);
      return state;
    },
    { name: 'token', initialState: () => null, afterStop: () => clearInterval(purge), onCrash: deps.onCrash },
  );
  const purge = setInterval(() => tell(ref, { type: 'Purge' }), PURGE_EVERY_MS).unref();
  tell(ref, { type: 'Purge' });
  return ref;
}

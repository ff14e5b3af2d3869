import { secondsClock } from '../../src/security/epoch.ts';
import { spawnAsync, tell, type CrashPolicy, type Ctx, type Ref } from '../../src/messaging/nact.ts';
import { refuseUnknown } from '../../src/messaging/supervision.ts';
import { createGrants, type Completion, type GrantDeps } from './grants/index.ts';
import { createConsents, type ConsentDeps } from './consents.ts';
import { createInspection, type InspectionDeps } from './inspection.ts';
import { createLogins, type LoginDeps } from '../../src/security/logins.ts';
import { everyPurge } from '../../src/security/purge-schedule.ts';
import { examples, type Command } from './protocol.ts';

export interface TokenActorDeps extends GrantDeps, LoginDeps, InspectionDeps, ConsentDeps {
  readonly onCrash: CrashPolicy;
}

/** The password checks' verdicts (BCrypt on the worker pool), and housekeeping. */
type Internal = Completion | { readonly type: 'Purge' };

type Msg = Command | Internal;

export function spawnTokenActor(parent: Ref<never>, deps: TokenActorDeps): Ref<Command> {
  const now = deps.now ?? Date.now;
  const seconds = secondsClock(now);
  const { revokeLogin, revokeAccessToken, endOldestLogins } = createLogins(deps, seconds);
  const grants = createGrants(deps, { seconds, revokeLogin, afterLogin: endOldestLogins });
  const { onRevoke, onIntrospect } = createInspection(deps, now, revokeLogin, revokeAccessToken);
  const { onListConsents, onWithdrawConsent } = createConsents(deps, seconds, revokeLogin);

  const onPurge = async (): Promise<void> => {
    await deps.refreshTokens.purgeExpired(seconds());
    await deps.codes.purgeExpired(seconds());
    await deps.tickets.purgeExpired(seconds());
    await deps.denylist.purge(seconds());
  };

  const handle = async (msg: Msg, ctx: Ctx<Msg>): Promise<void> => {
    switch (msg.type) {
      case 'IssueToken':
      case 'Refresh':
      case 'ClientCredentials':
      case 'RedeemCode':
        return grants.onGrant(msg, ctx.self);
      case 'Authorize':
        return grants.onAuthorize(msg, ctx.self);
      case 'AuthorizeConsented':
        return grants.onAuthorizeConsented(msg);
      case 'DenyConsent':
        return grants.onDenyConsent(msg);
      case 'LoginAdmitted':
        return grants.onLoginAdmitted(msg, ctx.self);
      case 'PasswordChecked':
        return grants.onPasswordChecked(msg, ctx.self);
      case 'ListConsents':
        return onListConsents(msg);
      case 'WithdrawConsent':
        return onWithdrawConsent(msg);
      case 'Revoke':
        return onRevoke(msg);
      case 'Introspect':
        return onIntrospect(msg);
      case 'WorkFailed':
        throw msg.error;
      case 'Purge':
        return onPurge();
      default:
        return refuseUnknown(msg, 'TokenActor', Object.keys(examples));
    }
  };

  // One purge timer for the actor's life, kept out of its state: a supervised reset re-runs
  // initialState (and would start another timer each time) but never afterStop.
  const ref = spawnAsync<null, Msg>(
    parent,
    async (state, msg, ctx) => {
      await handle(msg, ctx);
      return state;
    },
    { name: 'token', initialState: () => null, afterStop: () => stopPurging(), onCrash: deps.onCrash },
  );
  const stopPurging = everyPurge(() => tell(ref, { type: 'Purge' }));
  tell(ref, { type: 'Purge' });
  return ref;
}

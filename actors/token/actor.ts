import { secondsClock } from '../../src/security/epoch.ts';
import { spawn, tell, type CrashPolicy, type Ctx, type Ref } from '../../src/messaging/nact.ts';
import { replyBeside, type WorkFailed } from '../../src/messaging/pipe.ts';
import { refuseUnknown } from '../../src/messaging/supervision.ts';
import { createGrants, type GrantDeps } from './grants/table.ts';
import { createConsents, type ConsentDeps } from './consents.ts';
import { createInspection, type InspectionDeps } from './inspection.ts';
import { createSessionHandlers } from './sessions.ts';
import { createAccountLogin } from './grants/password-login.ts';
import { createLogins, type LoginDeps } from '../../src/security/logins.ts';
import { everyPurge } from '../../src/security/purge-schedule.ts';
import { examples, type Command } from './protocol.ts';

export interface TokenActorDeps extends GrantDeps, LoginDeps, InspectionDeps, ConsentDeps {
  readonly onCrash: CrashPolicy;
}

/** Work beside the mailbox that failed, and housekeeping. */
type Msg = Command | WorkFailed | { readonly type: 'Purge' };

/**
 * TokenActor: its mailbox only dispatches. Every operation runs beside it as one async function
 * (`replyBeside`), its answer straight to the sender, a failure back here as `WorkFailed`, which
 * supervision answers. It keeps no state that decides an answer: the stores settle every conflict
 * (a refresh token's rotation, a code spent, a consent ticket spent, a login's version-checked
 * write), as they must, since each worker process runs a TokenActor of its own.
 */
export function spawnTokenActor(parent: Ref<never>, deps: TokenActorDeps): Ref<Command> {
  const now = deps.now ?? Date.now;
  const seconds = secondsClock(now);
  const { revokeLogin, revokeAccessToken, endOldestLogins } = createLogins(deps, seconds);
  const grants = createGrants(deps, { seconds, revokeLogin, afterLogin: endOldestLogins });
  const { onRevoke, onIntrospect } = createInspection(deps, now, revokeLogin, revokeAccessToken);
  const { onListConsents, onWithdrawConsent } = createConsents(deps, seconds, revokeLogin);
  const { onSignIn, onGetSession, onEndSession, onSignOut, onListSessions, onEndSessions } = createSessionHandlers(
    deps.sessions,
    createAccountLogin(deps),
    seconds,
  );

  /** Expired records go; each purge is idempotent, so one overlapping another (or another process's) is harmless. */
  const onPurge = async (): Promise<void> => {
    await deps.refreshTokens.purgeExpired(seconds());
    await deps.codes.purgeExpired(seconds());
    await deps.tickets.purgeExpired(seconds());
    await deps.sessions.purge();
    await deps.denylist.purge(seconds());
  };

  const handle = (msg: Msg, ctx: Ctx<Msg>): void => {
    switch (msg.type) {
      case 'Grant':
        return replyBeside(ctx.self, msg.sender, grants.onGrant(msg));
      case 'Authorize':
        return replyBeside(ctx.self, msg.sender, grants.onAuthorize(msg));
      case 'AuthorizeSignedIn':
        return replyBeside(ctx.self, msg.sender, grants.onAuthorizeSignedIn(msg));
      case 'AuthorizeConsented':
        return replyBeside(ctx.self, msg.sender, grants.onAuthorizeConsented(msg));
      case 'DenyConsent':
        return replyBeside(ctx.self, msg.sender, grants.onDenyConsent(msg));
      case 'ListConsents':
        return replyBeside(ctx.self, msg.sender, onListConsents(msg));
      case 'WithdrawConsent':
        return replyBeside(ctx.self, msg.sender, onWithdrawConsent(msg));
      case 'SignIn':
        return replyBeside(ctx.self, msg.sender, onSignIn(msg));
      case 'GetSession':
        return replyBeside(ctx.self, msg.sender, onGetSession(msg));
      case 'EndSession':
        return replyBeside(ctx.self, msg.sender, onEndSession(msg));
      case 'SignOut':
        return replyBeside(ctx.self, msg.sender, onSignOut(msg));
      case 'ListSessions':
        return replyBeside(ctx.self, msg.sender, onListSessions(msg));
      case 'EndSessions':
        return replyBeside(ctx.self, msg.sender, onEndSessions(msg));
      case 'Revoke':
        return replyBeside(ctx.self, msg.sender, onRevoke(msg));
      case 'Introspect':
        return replyBeside(ctx.self, msg.sender, onIntrospect(msg));
      case 'Purge':
        return replyBeside(ctx.self, undefined, onPurge());
      case 'WorkFailed':
        throw msg.error;
      default:
        return refuseUnknown(msg, 'TokenActor', Object.keys(examples));
    }
  };

  // One purge timer for the actor's life, kept out of its state: a supervised reset re-runs
  // initialState (and would start another timer each time) but never afterStop.
  const ref = spawn<null, Msg>(
    parent,
    (state, msg, ctx) => {
      handle(msg, ctx);
      return state;
    },
    { name: 'token', initialState: () => null, afterStop: () => stopPurging(), onCrash: deps.onCrash },
  );
  const stopPurging = everyPurge(() => tell(ref, { type: 'Purge' }));
  tell(ref, { type: 'Purge' });
  return ref;
}

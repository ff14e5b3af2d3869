import { secondsClock } from '../../src/security/epoch.ts';
import { spawn, tell, type CrashPolicy, type Ctx, type Ref } from '../../src/messaging/nact.ts';
import { ok } from '../../src/messaging/reply.ts';
import { refuseUnknown } from '../../src/messaging/supervision.ts';
import { createCodes, type CodeDeps } from './codes.ts';
import { createCredentialChecks, type Completion, type CredentialCheckDeps } from './credential-checks.ts';
import { createGrants, type GrantDeps } from './grants.ts';
import { createInspection, type InspectionDeps } from './inspection.ts';
import { createLogins, type LoginDeps } from '../../src/security/logins.ts';
import { createRefresh, type RefreshDeps } from './refresh.ts';
import { examples, type Command } from './protocol.ts';

export interface TokenActorDeps
  extends GrantDeps, CredentialCheckDeps, LoginDeps, CodeDeps, RefreshDeps, InspectionDeps {
  readonly onCrash: CrashPolicy;
}

/** The credential checks' verdicts (BCrypt on the worker pool), and housekeeping. */
type Internal = Completion | { readonly type: 'Purge' };

type Msg = Command | Internal;

type Of<T extends Msg['type']> = Extract<Msg, { type: T }>;

const PURGE_EVERY_MS = 3_600_000;

export function spawnTokenActor(parent: Ref<never>, deps: TokenActorDeps): Ref<Command> {
  const now = deps.now ?? Date.now;
  const seconds = secondsClock(now);
  const grants = createGrants(deps);

  const { revokeLogin, revokeAccessToken, endOldestLogins } = createLogins(deps, seconds);
  const codes = createCodes(deps, grants, seconds, (loginId) => revokeLogin(loginId), endOldestLogins);
  const checks = createCredentialChecks(deps, grants, endOldestLogins, codes.issue);
  const { onRefresh } = createRefresh(deps, grants, seconds, revokeLogin);
  const { onRevoke, onIntrospect } = createInspection(deps, now, revokeLogin, revokeAccessToken);

  const onClientCredentials = async (msg: Of<'ClientCredentials'>): Promise<void> => {
    const client = grants.checkGrant(msg.clientId, 'client_credentials', msg.scope);
    if ('ok' in client) return tell(msg.sender, client);
    tell(msg.sender, ok(await grants.clientToken(client, msg.scope ?? client.scopes)));
  };

  const onPurge = async (): Promise<void> => {
    await deps.refreshTokens.purgeExpired(seconds());
    await deps.codes.purgeExpired(seconds());
    await deps.denylist.purge(seconds());
  };

  const handle = async (msg: Msg, ctx: Ctx<Msg>): Promise<void> => {
    switch (msg.type) {
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

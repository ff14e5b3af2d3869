import { spawn, tell, type CrashPolicy, type Ctx, type Ref } from '../../src/messaging/nact.ts';
import { fail, ok } from '../../src/messaging/reply.ts';
import { refuseUnknown } from '../../src/messaging/supervision.ts';
import { InvalidTokenError, type TokenVerifier } from '../../src/security/jwt.ts';
import { hashToken, looksLikeRefreshToken } from '../../src/security/refresh-tokens.ts';
import type { RefreshTokenRecord } from '../../src/stores/refresh-token-store.ts';
import { createCodes, type CodeDeps } from './codes.ts';
import { createCredentialChecks, type Completion, type CredentialCheckDeps } from './credential-checks.ts';
import { createGrants, type GrantDeps } from './grants.ts';
import { createLogins, type LoginDeps } from './logins.ts';
import { createAccountAdmin, type AccountDeps } from './accounts.ts';
import {
  examples,
  isAccountCommand,
  REUSED_REFRESH_TOKEN,
  type AccountView,
  type Command,
  type Introspection,
} from './protocol.ts';

export interface TokenActorDeps extends GrantDeps, CredentialCheckDeps, LoginDeps, CodeDeps, AccountDeps {
  /** Verifies access tokens (revocation included) for revocation and introspection. */
  readonly verifyAccessToken: TokenVerifier;
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

  const refused = (msg: Of<'Refresh'>, description: string): void =>
    tell(msg.sender, fail('grant.invalid', description));

  const { revokeLogin, revokeAccessToken, endOldestLogins } = createLogins(deps, seconds);
  const codes = createCodes(deps, grants, seconds, (loginId) => revokeLogin(loginId), endOldestLogins);
  const checks = createCredentialChecks(deps, grants, endOldestLogins, codes.issue);
  const administer = createAccountAdmin(deps, (loginId) => revokeLogin(loginId), now);

  /** A live refresh token of this client, or the reason it is not one. */
  const liveRefresh = async (msg: Of<'Refresh'>): Promise<RefreshTokenRecord | string> => {
    const record = await deps.refreshTokens.find(hashToken(msg.refreshToken));
    if (!record || record.clientId !== msg.clientId) return 'Invalid refresh token';
    if (record.revokedAt !== null || (await deps.denylist.loginRevoked(record.familyId)))
      return 'Refresh token revoked';
    if (record.usedAt !== null) {
      await revokeLogin(record.familyId, record.expiresAt);
      return REUSED_REFRESH_TOKEN;
    }
    return record.expiresAt <= seconds() ? 'Refresh token expired' : record;
  };

  const onRefresh = async (msg: Of<'Refresh'>): Promise<void> => {
    const client = grants.checkGrant(msg.clientId, 'refresh_token', msg.scope);
    if ('ok' in client) return tell(msg.sender, client);
    const record = await liveRefresh(msg);
    if (typeof record === 'string') return refused(msg, record);
    const wider = (msg.scope ?? []).filter((s) => !record.scope.includes(s));
    if (wider.length > 0)
      return tell(msg.sender, fail('scope.invalid', `Scope wider than the original grant: ${wider.join(' ')}`));
    const user = await deps.credentials.findByUsername(record.username);
    if (!user?.enabled) return refused(msg, 'The account no longer exists or is disabled');
    const scope = msg.scope ?? record.scope;
    const issued = await grants.sign(client, user, scope, record.familyId);
    const lastExp = Math.max(issued.exp, record.accessExpiresAt ?? 0);
    const { familyId, expiresAt, generation } = record;
    const next = grants.newRefresh(client, user, record.scope, familyId, expiresAt, lastExp, generation + 1);
    if (!next) return refused(msg, 'Invalid refresh token');
    // Lost the rotation: another request (in this process or another) spent the token since it
    // was read. That is reuse as much as a token found used: the login is revoked either way.
    if (!(await deps.refreshTokens.rotate(record.tokenHash, next.record, seconds()))) {
      await revokeLogin(familyId, expiresAt);
      return refused(msg, REUSED_REFRESH_TOKEN);
    }
    tell(msg.sender, ok(grants.granted(issued, scope, next.token)));
  };

  const onClientCredentials = async (msg: Of<'ClientCredentials'>): Promise<void> => {
    const client = grants.checkGrant(msg.clientId, 'client_credentials', msg.scope);
    if ('ok' in client) return tell(msg.sender, client);
    tell(msg.sender, ok(await grants.clientToken(client, msg.scope ?? client.scopes)));
  };

  const accessClaims = async (token: string) => {
    try {
      return await deps.verifyAccessToken(token, now());
    } catch (error) {
      if (error instanceof InvalidTokenError) return undefined;
      throw error;
    }
  };

  /**
   * The token as a refresh-token record or as access-token claims. The token's own form tells the
   * two kinds apart at once, so both are always looked for (no `token_type_hint` is needed).
   */
  const locate = async (token: string) => {
    const record = looksLikeRefreshToken(token) ? await deps.refreshTokens.find(hashToken(token)) : undefined;
    return { record, claims: record ? undefined : await accessClaims(token) };
  };

  const onRevoke = async (msg: Of<'Revoke'>): Promise<void> => {
    const { record, claims } = await locate(msg.token);
    const owner = record?.clientId ?? claims?.clientId;
    if (owner !== undefined && owner !== msg.clientId)
      return tell(msg.sender, fail('client.mismatch', 'The token was issued to another client'));
    if (record) await revokeLogin(record.familyId, record.expiresAt);
    if (claims) await revokeAccessToken(claims);
    tell(msg.sender, ok(null));
  };

  const introspectRefresh = async (record: RefreshTokenRecord): Promise<Introspection> =>
    record.revokedAt !== null ||
    record.usedAt !== null ||
    record.expiresAt <= seconds() ||
    (await deps.denylist.loginRevoked(record.familyId))
      ? { active: false }
      : {
          active: true,
          tokenType: 'refresh_token',
          scope: record.scope,
          clientId: record.clientId,
          username: record.username,
          clientToken: false,
          exp: record.expiresAt,
          iat: record.issuedAt,
          jti: undefined,
        };

  const onIntrospect = async (msg: Of<'Introspect'>): Promise<void> => {
    const { record, claims } = await locate(msg.token);
    const found: Introspection = record
      ? await introspectRefresh(record)
      : claims
        ? {
            active: true,
            tokenType: 'access_token',
            scope: claims.scope,
            clientId: claims.clientId,
            username: claims.username,
            clientToken: claims.clientToken === true,
            exp: claims.exp,
            iat: claims.iat,
            jti: claims.jti,
          }
        : { active: false };
    // Another client's token, or one whose account no longer exists or is disabled, is inactive to this caller.
    const standing =
      found.active &&
      found.clientId === msg.clientId &&
      (found.clientToken || (await deps.credentials.findByUsername(found.username))?.enabled === true);
    tell(msg.sender, ok(standing ? found : { active: false }));
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
    const users = (await deps.credentials.listAll()).map(({ enabled: _, ...account }) => account);
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
        return checks.onIssueToken(msg, ctx.self);
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

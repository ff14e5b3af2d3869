/**
 * Revocation (RFC 7009) and introspection (RFC 7662) in TokenActor: a token presented by its
 * client is found as a refresh-token record or as access-token claims, then revoked or described.
 */
import { secondsClock } from '../../src/security/epoch.ts';
import { fail, ok } from '../../src/messaging/reply.ts';
import type { Denylist } from '../../src/security/denylist.ts';
import { InvalidTokenError, type Principal } from '../../src/security/jwt.ts';
import { hashToken, looksLikeRefreshToken } from '../../src/security/refresh-tokens.ts';
import { accountSubject } from '../../src/security/subjects.ts';
import type { CachedVerifier } from '../../src/security/token-cache.ts';
import type { AccountStore } from '../../src/stores/account-store.ts';
import type { RefreshTokenRecord, RefreshTokenStore } from '../../src/stores/refresh-token-store.ts';
import type { Command, Introspection, IntrospectReply, RevokeReply } from './protocol.ts';

export interface InspectionDeps {
  /**
   * Verifies access tokens (revocation included) for revocation and introspection: a token this
   * process verified before is answered from memory, its key and the denylist consulted
   * (src/security/token-cache.ts); any other is verified and kept.
   */
  readonly verifyAccessToken: CachedVerifier;
  readonly accounts: AccountStore;
  readonly refreshTokens: RefreshTokenStore;
  readonly denylist: Denylist;
}

type Of<T extends 'Revoke' | 'Introspect'> = Extract<Command, { type: T }>;

export function createInspection(
  deps: InspectionDeps,
  now: () => number,
  revokeLogin: (loginId: string, loginExpiresAt?: number) => Promise<void>,
  revokeAccessToken: (claims: Principal) => Promise<void>,
) {
  const seconds = secondsClock(now);

  const accessClaims = async (token: string) => {
    const at = now();
    const kept = deps.verifyAccessToken.lookup(token, at);
    if (kept) return kept;
    try {
      return await deps.verifyAccessToken(token, at);
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

  /** Revocations are idempotent writes: two at once, here or in another process, both stand. */
  const onRevoke = async (msg: Of<'Revoke'>): Promise<RevokeReply> => {
    const { record, claims } = await locate(msg.token);
    const owner = record?.clientId ?? claims?.clientId;
    if (owner !== undefined && owner !== msg.clientId)
      return fail('client.mismatch', 'The token was issued to another client');
    if (record) await revokeLogin(record.loginId, record.expiresAt);
    if (claims) await revokeAccessToken(claims);
    return ok(null);
  };

  const introspectRefresh = async (record: RefreshTokenRecord): Promise<Introspection> =>
    record.accountId === null ||
    record.revokedAt !== null ||
    record.usedAt !== null ||
    record.expiresAt <= seconds() ||
    (await deps.denylist.loginRevoked(record.loginId))
      ? { active: false }
      : {
          active: true,
          tokenType: 'refresh_token',
          scope: record.scope,
          clientId: record.clientId,
          username: record.username,
          subject: accountSubject(record.accountId),
          clientToken: false,
          exp: record.expiresAt,
          iat: record.issuedAt,
          jti: undefined,
        };

  const introspectAccess = (claims: Principal): Introspection => ({
    active: true,
    tokenType: 'access_token',
    scope: claims.scope,
    clientId: claims.clientId,
    username: claims.username,
    subject: claims.subject,
    clientToken: claims.clientToken === true,
    exp: claims.exp,
    iat: claims.iat,
    jti: claims.jti,
  });

  /**
   * Whether the account a token was minted from is, in the store now, enabled at the version the
   * token names (by id: a username created again is another account). A token naming none: no.
   */
  const current = async (accountId: number | null | undefined, version: number | null | undefined) => {
    if (accountId === null || accountId === undefined) return false;
    const account = await deps.accounts.findById(accountId);
    return account?.enabled === true && account.securityVersion === version;
  };

  /**
   * Whether the denylist alone decides that of an access token it admitted (naming an account at a
   * version it does not cut). Every change that ends an account's standing moves its version in the
   * write that makes it: disabled, enabled again, deleted (every version refused), a password set,
   * a role changed, every login ended; tokens are minted only from enabled accounts, versions only
   * grow and ids are never reused. So where the denylist reads every process's writes at once
   * (SQLite), its verdict is the store's and the read is spared; otherwise (MongoDB, where another
   * instance's entry is read within `security.revocation-sync-ms`) the store is read.
   */
  const denylistDecides = deps.denylist.seesEveryWrite;

  const onIntrospect = async (msg: Of<'Introspect'>): Promise<IntrospectReply> => {
    const { record, claims } = await locate(msg.token);
    const found: Introspection = record
      ? await introspectRefresh(record)
      : claims
        ? introspectAccess(claims)
        : { active: false };
    // Another client's token, or one whose account is gone, disabled or changed since, is inactive to this caller.
    const standing =
      found.active &&
      found.clientId === msg.clientId &&
      (found.clientToken ||
        (record
          ? await current(record.accountId, record.accountVersion)
          : claims !== undefined && (denylistDecides || (await current(claims.accountId, claims.accountVersion)))));
    return ok(standing ? found : { active: false });
  };

  return { onRevoke, onIntrospect };
}

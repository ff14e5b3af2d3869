/** TokenActor's message handlers: grants, rotation, revocation, introspection. The actor wires them. */
import { randomUUID } from 'node:crypto';
import { tell, type CrashPolicy } from '../../src/messaging/nact.ts';
import { fail, ok } from '../../src/messaging/reply.ts';
import type { Client, ClientAuthenticator } from '../../src/security/clients.ts';
import type { Denylist } from '../../src/security/denylist.ts';
import { CLOCK_SKEW, InvalidTokenError, type TokenSigner, type TokenVerifier } from '../../src/security/jwt.ts';
import type { PasswordHasher } from '../../src/security/passwords.ts';
import { hashToken, looksLikeRefreshToken, newRefreshToken } from '../../src/security/refresh-tokens.ts';
import type { CredentialStore, UserRecord } from '../../src/stores/credential-store.ts';
import type { RefreshTokenRecord, RefreshTokenStore } from '../../src/stores/refresh-token-store.ts';
import type { Command, Introspection, TokenGrant } from './protocol.ts';

export interface TokenActorDeps {
  readonly clients: readonly Client[];
  readonly authenticateClient: ClientAuthenticator;
  readonly credentials: CredentialStore;
  readonly refreshTokens: RefreshTokenStore;
  readonly passwords: PasswordHasher;
  readonly signAccessToken: TokenSigner;
  /** Verifies access tokens (revocation included) for revocation and introspection. */
  readonly verifyAccessToken: TokenVerifier;
  readonly denylist: Denylist;
  /** Seconds a login's refresh tokens live, counted from the login. */
  readonly refreshTokenValidity: number;
  /** Seconds an access token lives: how long a revoked login's tokens must still be refused. */
  readonly accessTokenValidity: number;
  /** Compared against when the user is unknown, so both failures take the same time. */
  readonly dummyHash: string;
  readonly onCrash: CrashPolicy;
  readonly now?: () => number;
}

type Of<T extends Command['type']> = Extract<Command, { type: T }>;

export function createHandlers(deps: TokenActorDeps) {
  const now = deps.now ?? Date.now;
  const seconds = (): number => Math.floor(now() / 1000);

  /** The client's checks that come before any credential is looked at. */
  const checkGrant = (clientId: string, grant: 'password' | 'refresh_token', scope: readonly string[] | undefined) => {
    const client = deps.clients.find((c) => c.clientId === clientId);
    if (!client) return fail('client.invalid', 'Unknown client');
    if (!client.grantTypes.includes(grant)) return fail('grant.unauthorized', `The client may not use the ${grant} grant`);
    const bad = (scope ?? []).filter((s) => !client.scopes.includes(s));
    if (bad.length > 0) return fail('scope.invalid', `Invalid scope: ${bad.join(' ')}`);
    return client;
  };

  /** An access token of the login `loginId` (the refresh-token family id), with its refresh token if any. */
  const grant = async (client: Client, user: UserRecord, scope: readonly string[], loginId: string, refreshToken: string | undefined): Promise<TokenGrant> => {
    const issued = await deps.signAccessToken({
      username: user.username, clientId: client.clientId, scope, authorities: user.roles.map((r) => r.roleName), loginId,
    }, now());
    const expiresIn = Math.floor((issued.exp * 1000 - now()) / 1000);
    return { accessToken: issued.token, tokenType: 'bearer', refreshToken, expiresIn, scope, jti: issued.jti };
  };

  const newRefresh = (client: Client, user: UserRecord, scope: readonly string[], familyId: string, expiresAt: number) => {
    if (!client.grantTypes.includes('refresh_token')) return undefined;
    const token = newRefreshToken();
    const record: RefreshTokenRecord = {
      tokenHash: hashToken(token), familyId, clientId: client.clientId, username: user.username, scope,
      issuedAt: seconds(), expiresAt, usedAt: null, revokedAt: null,
    };
    return { token, record };
  };

  /** The password grant after the password matched. */
  const issue = async (msg: Of<'IssueToken'>, client: Client, user: UserRecord): Promise<void> => {
    const scope = msg.scope ?? client.scopes;
    const loginId = randomUUID();
    const refresh = newRefresh(client, user, scope, loginId, seconds() + deps.refreshTokenValidity);
    const granted = await grant(client, user, scope, loginId, refresh?.token);
    if (refresh) await deps.refreshTokens.insert(refresh.record);
    tell(msg.sender, ok(granted));
  };

  const refused = (msg: Of<'Refresh'>, description: string): void => tell(msg.sender, fail('grant.invalid', description));

  /**
   * Revokes a whole login: its refresh tokens, and every access token issued in it (the first and
   * every rotation's), until the last of them would have expired anyway. The access tokens first:
   * a crash between the two leaves the refresh tokens usable, never the access tokens.
   */
  const revokeLogin = async (familyId: string): Promise<void> => {
    await deps.denylist.revokeLogin(familyId, seconds() + deps.accessTokenValidity + CLOCK_SKEW);
    await deps.refreshTokens.revokeFamily(familyId, seconds());
  };

  /** A live refresh token of this client, or the reason it is not one. */
  const liveRefresh = async (msg: Of<'Refresh'>): Promise<RefreshTokenRecord | string> => {
    const record = await deps.refreshTokens.find(hashToken(msg.refreshToken));
    if (!record || record.clientId !== msg.clientId) return 'Invalid refresh token';
    if (record.revokedAt !== null) return 'Refresh token revoked';
    if (record.usedAt !== null) {
      await revokeLogin(record.familyId);
      return 'Refresh token already used; every token of this login is revoked';
    }
    return record.expiresAt <= seconds() ? 'Refresh token expired' : record;
  };

  const refresh = async (msg: Of<'Refresh'>): Promise<void> => {
    const client = checkGrant(msg.clientId, 'refresh_token', msg.scope);
    if ('ok' in client) return tell(msg.sender, client);
    const record = await liveRefresh(msg);
    if (typeof record === 'string') return refused(msg, record);
    const wider = (msg.scope ?? []).filter((s) => !record.scope.includes(s));
    if (wider.length > 0) return tell(msg.sender, fail('scope.invalid', `Scope wider than the original grant: ${wider.join(' ')}`));
    const user = await deps.credentials.findByUsername(record.username);
    if (!user) return refused(msg, 'The user no longer exists');
    const next = newRefresh(client, user, record.scope, record.familyId, record.expiresAt);
    if (!next || !(await deps.refreshTokens.rotate(record.tokenHash, next.record, seconds()))) return refused(msg, 'Invalid refresh token');
    tell(msg.sender, ok(await grant(client, user, msg.scope ?? record.scope, record.familyId, next.token)));
  };

  const accessClaims = async (token: string) => {
    try {
      return await deps.verifyAccessToken(token, now());
    } catch (error) {
      if (error instanceof InvalidTokenError) return undefined;
      throw error;
    }
  };

  const findRefresh = async (token: string): Promise<RefreshTokenRecord | undefined> =>
    (looksLikeRefreshToken(token) ? deps.refreshTokens.find(hashToken(token)) : undefined);

  /**
   * The token as a refresh-token record or as access-token claims. The token's own form tells the
   * two kinds apart at once, so both are always looked for (no `token_type_hint` is needed).
   */
  const locate = async (token: string) => {
    const record = await findRefresh(token);
    return { record, claims: record ? undefined : await accessClaims(token) };
  };

  const revoke = async (msg: Of<'Revoke'>): Promise<void> => {
    const { record, claims } = await locate(msg.token);
    const owner = record?.clientId ?? claims?.clientId;
    if (owner !== undefined && owner !== msg.clientId) return tell(msg.sender, fail('client.mismatch', 'The token was issued to another client'));
    if (record) await revokeLogin(record.familyId);
    if (claims) await deps.denylist.revoke(claims.jti, claims.exp);
    tell(msg.sender, ok(null));
  };

  const introspectRefresh = (record: RefreshTokenRecord): Introspection =>
    (record.revokedAt !== null || record.usedAt !== null || record.expiresAt <= seconds()
      ? { active: false }
      : { active: true, tokenType: 'refresh_token', scope: record.scope, clientId: record.clientId, username: record.username, exp: record.expiresAt, iat: record.issuedAt, jti: undefined });

  const introspect = async (msg: Of<'Introspect'>): Promise<void> => {
    const { record, claims } = await locate(msg.token);
    const found: Introspection = record ? introspectRefresh(record)
      : claims ? { active: true, tokenType: 'access_token', scope: claims.scope, clientId: claims.clientId, username: claims.username, exp: claims.exp, iat: claims.iat, jti: claims.jti }
        : { active: false };
    // Another client's token, or one whose user no longer exists, is inactive to this caller.
    const standing = found.active && found.clientId === msg.clientId && (await deps.credentials.findByUsername(found.username)) !== undefined;
    tell(msg.sender, ok(standing ? found : { active: false }));
  };

  const purge = async (): Promise<void> => {
    await deps.refreshTokens.purgeExpired(seconds());
    await deps.denylist.purge(seconds());
  };

  return { checkGrant, issue, refresh, revoke, introspect, purge };
}

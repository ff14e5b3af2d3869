/**
 * What TokenActor's grants share: the client's checks before any credential is looked at, and
 * minting an access token with the record of its login (its refresh token, when the client has
 * them), and the id_token of an OpenID login beside it.
 */
import { secondsClock } from '../../../src/security/epoch.ts';
import { randomUUID } from 'node:crypto';
import { fail } from '../../../src/messaging/reply.ts';
import type { RegisteredGrant } from '../../../src/security/client-registry.ts';
import type { Client } from '../../../src/security/clients.ts';
import type { IdTokenSigner } from '../../../src/security/id-token.ts';
import type { IssuedToken as Issued, TokenSigner } from '../../../src/security/jwt.ts';
import { accountSubject } from '../../../src/security/subjects.ts';
import { hashToken, newRefreshToken, tokenlessLoginKey } from '../../../src/security/refresh-tokens.ts';
import type { AccountRecord } from '../../../src/stores/account-store.ts';
import type { RefreshTokenRecord, RefreshTokenStore } from '../../../src/stores/refresh-token-store.ts';
import type { TokenGrant } from '../protocol.ts';

export interface IssuingDeps {
  readonly clients: readonly Client[];
  readonly refreshTokens: RefreshTokenStore;
  readonly signAccessToken: TokenSigner;
  /** Signs id_tokens with the id_token lineage's active key. */
  readonly signIdToken: IdTokenSigner;
  /** Seconds a login's refresh tokens live, counted from the login. */
  readonly refreshTokenValidity: number;
  readonly now?: () => number;
}

export type Issuing = ReturnType<typeof createIssuing>;

/**
 * The sign-in a login began with at the authorization endpoint: when the account's password was
 * checked (epoch seconds) and the request's `nonce` (OpenID Connect). A login of the password
 * grant has none.
 */
export interface Authentication {
  readonly authTime: number;
  readonly nonce: string | null;
}

/** A login as its refresh-token records tell it: whose it is, for which client and scope, and until when. */
export interface LoginTerms {
  readonly client: Client;
  /** The account as read. */
  readonly account: AccountRecord;
  readonly scope: readonly string[];
  readonly loginId: string;
  /** When the login's refresh tokens expire, epoch seconds. */
  readonly expiresAt: number;
  /** The latest `exp` of the login's access tokens so far. */
  readonly accessExpiresAt: number;
  /** 0 (the default) for the login's first refresh token, one more with each rotation. */
  readonly generation?: number;
  /** When the login's password was checked at the authorization endpoint; undefined for the password grant's. */
  readonly authTime?: number | null | undefined;
}

export function createIssuing(deps: IssuingDeps) {
  const now = deps.now ?? Date.now;
  const seconds = secondsClock(now);

  /** The client, or the failure to answer when it may not have this grant or scope. */
  const checkGrant = (clientId: string, grant: RegisteredGrant, scope: readonly string[] | undefined) => {
    const client = deps.clients.find((c) => c.clientId === clientId);
    if (!client) return fail('client.invalid', 'Unknown client');
    if (!client.grantTypes.includes(grant))
      return fail('grant.unauthorized', `The client may not use the ${grant} grant`);
    const bad = (scope ?? []).filter((s) => !client.scopes.includes(s));
    if (bad.length > 0) return fail('scope.invalid', `Invalid scope: ${bad.join(' ')}`);
    return client;
  };

  /** A signed access token of the login `loginId`. */
  const sign = (client: Client, account: AccountRecord, scope: readonly string[], loginId: string): Promise<Issued> =>
    deps.signAccessToken(
      {
        username: account.username,
        clientId: client.clientId,
        scope,
        authorities: account.roles.map((r) => r.roleName),
        loginId,
        account: { id: account.id, version: account.securityVersion },
      },
      now(),
    );

  /**
   * The id_token beside `issued` for a login begun at the authorization endpoint (its
   * `authentication`) whose scope has `openid`; undefined for every other (the password grant's,
   * whatever its scope).
   */
  const idToken = async (
    client: Client,
    account: AccountRecord,
    scope: readonly string[],
    issued: Issued,
    authentication: Authentication | undefined,
  ): Promise<string | undefined> => {
    if (authentication === undefined || !scope.includes('openid')) return undefined;
    const { authTime, nonce } = authentication;
    const subject = accountSubject(account.id);
    const request = { subject, clientId: client.clientId, authTime, accessToken: issued.token };
    return deps.signIdToken(nonce === null ? request : { ...request, nonce }, now());
  };

  /** The answer to the client: the access token, with its refresh token and id_token when it has them. */
  const granted = (
    issued: Issued,
    scope: readonly string[],
    refreshToken: string | undefined,
    idToken?: string,
  ): TokenGrant => {
    const expiresIn = Math.floor((issued.exp * 1000 - now()) / 1000);
    const grant = { accessToken: issued.token, tokenType: 'Bearer' as const, refreshToken, expiresIn, scope };
    return { ...grant, jti: issued.jti, ...(idToken === undefined ? {} : { idToken }) };
  };

  /** The store's record of a login whose token hashes to `tokenHash`; the account as read. */
  const recordOf = (
    tokenHash: string,
    { client, account, scope, loginId, expiresAt, accessExpiresAt, generation = 0, authTime }: LoginTerms,
  ): RefreshTokenRecord => ({
    tokenHash,
    loginId,
    clientId: client.clientId,
    username: account.username,
    scope,
    issuedAt: seconds(),
    expiresAt,
    usedAt: null,
    revokedAt: null,
    accessExpiresAt,
    generation,
    accountId: account.id,
    accountVersion: account.securityVersion,
    authTime: authTime ?? null,
  });

  /** A new refresh token of the login and its record; none for a client without the refresh_token grant. */
  const newRefresh = (terms: LoginTerms) => {
    if (!terms.client.grantTypes.includes('refresh_token')) return undefined;
    const token = newRefreshToken();
    return { token, record: recordOf(hashToken(token), terms) };
  };

  /**
   * The tokens of a new login (the password grant once the password matched, or a redeemed code's),
   * minted from `account` as read. Every login is recorded, so that it is listed, bounded and ended
   * with the account's others: with its first refresh token, or, for a client without the
   * refresh_token grant, under a key no token hashes to (`tokenlessLoginKey`), living as long as
   * its one access token. Undefined when the account changed since that read: the record is
   * written only while the account is enabled at the version read (checked with the write), and
   * the access token carries that version, so nothing of the login outlives the change. A login
   * begun with a code keeps its `authentication`'s time on its records, and with `openid` in its
   * scope gets an id_token, signed before anything is written.
   */
  const newLogin = async (
    client: Client,
    account: AccountRecord,
    scope: readonly string[],
    loginId: string = randomUUID(),
    authentication?: Authentication,
  ): Promise<TokenGrant | undefined> => {
    const issued = await sign(client, account, scope, loginId);
    const openid = await idToken(client, account, scope, issued, authentication);
    const terms = { client, account, scope, loginId, accessExpiresAt: issued.exp, authTime: authentication?.authTime };
    const refresh = newRefresh({ ...terms, expiresAt: seconds() + deps.refreshTokenValidity });
    const record = refresh?.record ?? recordOf(tokenlessLoginKey(loginId), { ...terms, expiresAt: issued.exp });
    if (!(await deps.refreshTokens.insert(record))) return undefined;
    return granted(issued, scope, refresh?.token, openid);
  };

  return { checkGrant, sign, idToken, granted, newRefresh, newLogin };
}

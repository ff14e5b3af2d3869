/**
 * The refresh_token grant in TokenActor: a live refresh token of the client is spent for a new
 * access token and its successor, and for a fresh id_token when the login began with a code and
 * the refresh's scope has `openid`. A token presented a second time, or spent by another request
 * since it was read, revokes its whole login.
 */
import { fail, ok } from '../../../src/messaging/reply.ts';
import type { Denylist } from '../../../src/security/denylist.ts';
import { hashToken } from '../../../src/security/refresh-tokens.ts';
import type { AccountStore } from '../../../src/stores/account-store.ts';
import type { RefreshTokenRecord, RefreshTokenStore } from '../../../src/stores/refresh-token-store.ts';
import type { Issuing } from './issuing.ts';
import type { Client } from '../../../src/security/clients.ts';
import { ACCOUNT_CHANGED, REUSED_REFRESH_TOKEN, type GrantOf, type GrantReply } from '../protocol.ts';
import type { GrantRequest } from './grant-request.ts';

export interface RefreshDeps {
  readonly accounts: AccountStore;
  readonly refreshTokens: RefreshTokenStore;
  readonly denylist: Denylist;
}

type Refresh = GrantOf<'refresh_token'> & GrantRequest;

/** Reads of the token and its account, when a change to the account keeps overtaking the rotation. */
const READS = 3;

export function createRefresh(
  deps: RefreshDeps,
  grants: Issuing,
  seconds: () => number,
  revokeLogin: (loginId: string, loginExpiresAt?: number) => Promise<void>,
) {
  const refused = (description: string) => fail('grant.invalid', description);

  /** A live refresh token of this client, or the reason it is not one. */
  const liveRefresh = async (msg: Refresh): Promise<RefreshTokenRecord | string> => {
    const record = await deps.refreshTokens.find(hashToken(msg.refreshToken));
    if (!record || record.clientId !== msg.clientId) return 'Invalid refresh token';
    if (record.revokedAt !== null || (await deps.denylist.loginRevoked(record.loginId))) return 'Refresh token revoked';
    if (record.usedAt !== null) {
      await revokeLogin(record.loginId, record.expiresAt);
      return REUSED_REFRESH_TOKEN;
    }
    return record.expiresAt <= seconds() ? 'Refresh token expired' : record;
  };

  /**
   * One rotation from one read of the token and its account. The login lives only while its token
   * names the account's current version; the rotation writes only while that still holds (checked
   * with the write), so a change answered after the read leaves nothing signed from it: `again`,
   * read both again (a role change carried the login on, and the new roles are signed).
   */
  const rotateOnce = async (msg: Refresh, client: Client): Promise<'again' | GrantReply> => {
    const record = await liveRefresh(msg);
    if (typeof record === 'string') return refused(record);
    const wider = (msg.scope ?? []).filter((s) => !record.scope.includes(s));
    if (wider.length > 0) return fail('scope.invalid', `Scope wider than the original grant: ${wider.join(' ')}`);
    const account = record.accountId === null ? undefined : await deps.accounts.findById(record.accountId);
    // A version past the token's: a change committed between the two reads, which may have carried
    // the login on (a role change): read both again.
    if (account?.enabled && record.accountVersion !== null && account.securityVersion > record.accountVersion)
      return 'again';
    if (!account?.enabled || account.securityVersion !== record.accountVersion) return refused(ACCOUNT_CHANGED);
    const scope = msg.scope ?? record.scope;
    const issued = await grants.sign(client, account, scope, record.loginId);
    // Of the login's original authentication (OpenID Core §12.2): its auth_time, and no nonce.
    const authentication = record.authTime === null ? undefined : { authTime: record.authTime, nonce: null };
    const idToken = await grants.idToken(client, account, scope, issued, authentication);
    const lastExp = Math.max(issued.exp, record.accessExpiresAt ?? 0);
    const { loginId, expiresAt, generation, authTime } = record;
    const next = grants.newRefresh({
      client,
      account,
      scope: record.scope,
      loginId,
      expiresAt,
      accessExpiresAt: lastExp,
      generation: generation + 1,
      authTime,
    });
    if (!next) return refused('Invalid refresh token');
    const rotation = await deps.refreshTokens.rotate(record.tokenHash, next.record, seconds());
    if (rotation === 'stale') return 'again';
    // Lost the rotation: another request (in this process or another) spent the token since it
    // was read. That is reuse as much as a token found used: the login is revoked either way.
    if (rotation === 'spent') {
      await revokeLogin(loginId, expiresAt);
      return refused(REUSED_REFRESH_TOKEN);
    }
    return ok(grants.granted(issued, scope, next.token, idToken));
  };

  /**
   * The grant. Its conflicts are the store's to settle: the rotation is written only from the
   * token as read (`stale`, `spent`), so requests run side by side, in one process or many.
   */
  const refreshGrant = async (grant: GrantOf<'refresh_token'>, request: GrantRequest): Promise<GrantReply> => {
    const msg = { ...grant, ...request };
    const client = grants.checkGrant(msg.clientId, 'refresh_token', msg.scope);
    if ('ok' in client) return client;
    for (let read = 0; read < READS; read++) {
      const reply = await rotateOnce(msg, client);
      if (reply !== 'again') return reply;
    }
    return refused(ACCOUNT_CHANGED);
  };

  return { refreshGrant };
}

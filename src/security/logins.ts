/**
 * Ending logins, and the bounds that keep what one account can make the service hold finite: at
 * most `maxLoginsPerAccount` live logins per account (past it, the least recently refreshed is
 * ended), and at most `maxRevokedTokensPerLogin` access tokens revoked one by one per login (past
 * it, revoking another ends the whole login: one entry instead of more, and never fewer refused).
 */
import type { Denylist } from './denylist.ts';
import { CLOCK_SKEW } from './jwt.ts';
import type { RefreshTokenStore } from '../stores/refresh-token-store.ts';

export interface LoginDeps {
  readonly denylist: Denylist;
  readonly refreshTokens: RefreshTokenStore;
  /** Seconds an access token lives: the horizon of a login whose tokens predate the record. */
  readonly accessTokenValidity: number;
  /** Seconds a login's refresh tokens live: the bound of a login whose expiry is not at hand. */
  readonly refreshTokenValidity: number;
  /** Live logins one account may hold (`security.jwt.max-logins-per-user`). */
  readonly maxLoginsPerAccount: number;
  /** Access tokens of one login revoked one by one (`security.jwt.max-revoked-tokens-per-login`). */
  readonly maxRevokedTokensPerLogin: number;
}

export function createLogins(deps: LoginDeps, seconds: () => number) {
  /**
   * How long a revoked login's access tokens must be refused: the latest `exp` they carry (recorded
   * with the login's refresh tokens, by the clock of whichever process issued them) plus the skew
   * every verifier allows; this process's clock only for logins recorded before that was kept.
   */
  const horizon = (lastExp: number | undefined): number =>
    (lastExp ?? seconds() + deps.accessTokenValidity) + CLOCK_SKEW;

  /**
   * Revokes a whole login: every access token issued in it (the first and every rotation's) and
   * every refresh token. The one durable step is the login's revocation: access tokens are refused
   * by it, and a refresh token is honoured only while its login is not revoked, so it is kept until
   * the later of the access tokens' horizon and the refresh tokens' expiry (`loginExpiresAt`, or
   * at most the refresh-token validity from now when it is not at hand). Marking its refresh
   * tokens revoked comes after, as bookkeeping: a failure between the two still leaves the login revoked.
   * A rotation that committed in another process just before the login was revoked may have
   * issued a later `exp`: the horizon is read again once no rotation can commit, and widened if so.
   */
  const revokeLogin = async (loginId: string, loginExpiresAt?: number): Promise<void> => {
    const refreshEnd = (loginExpiresAt ?? seconds() + deps.refreshTokenValidity) + CLOCK_SKEW;
    const until = (lastExp: number | undefined): number => Math.max(horizon(lastExp), refreshEnd);
    const before = await deps.refreshTokens.accessHorizon(loginId);
    await deps.denylist.revokeLogin(loginId, until(before));
    await deps.refreshTokens.revokeLogin(loginId, seconds());
    const after = await deps.refreshTokens.accessHorizon(loginId);
    if (after !== undefined && after > (before ?? -Infinity)) await deps.denylist.revokeLogin(loginId, until(after));
  };

  /** Revokes one access token; past the login's bound, the whole login instead. */
  const revokeAccessToken = async (claims: { jti: string; exp: number; loginId: string | undefined }) => {
    const { jti, exp, loginId } = claims;
    const revoked = loginId === undefined ? 0 : await deps.denylist.revokedTokensOf(loginId, seconds());
    if (loginId !== undefined && revoked >= deps.maxRevokedTokensPerLogin) return revokeLogin(loginId);
    // Verifiers accept a token until its exp plus the skew: it is refused that long.
    await deps.denylist.revoke(jti, exp + CLOCK_SKEW, loginId);
  };

  /** After a login of the account `accountId`: ends its least recently refreshed logins past the bound. */
  const endOldestLogins = async (accountId: number): Promise<void> => {
    const live = await deps.refreshTokens.liveLogins(accountId, seconds());
    for (const loginId of live.slice(0, Math.max(0, live.length - deps.maxLoginsPerAccount)))
      await revokeLogin(loginId);
  };

  return { revokeLogin, revokeAccessToken, endOldestLogins };
}

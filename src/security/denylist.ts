/**
 * Revoked access tokens (by `jti`) and revoked logins (by login id: every access token of the
 * login), in memory for the per-request check and in the store so that a restart keeps them.
 * TokenActor is the only writer; the resource server only reads.
 */
import type { RevocationStore } from '../stores/revocation-store.ts';

/** What the denylist needs to know of an access token. */
export interface Revocable {
  readonly jti: string;
  /** The login the token was issued in (its `sid` claim); tokens issued before logins were named have none. */
  readonly loginId: string | undefined;
}

export interface Denylist {
  /** The token itself, or its whole login, was revoked. */
  isRevoked(token: Revocable): boolean;
  /** Refuses `jti` until `expiresAt` (epoch seconds). */
  revoke(jti: string, expiresAt: number): void;
  /** Refuses every access token of the login until `expiresAt` (epoch seconds). */
  revokeLogin(loginId: string, expiresAt: number): void;
  /** Forgets entries whose tokens have expired anyway. */
  purge(nowSeconds: number): void;
}

export function createDenylist(store: RevocationStore, nowSeconds = Math.floor(Date.now() / 1000)): Denylist {
  const tokens = new Map(store.live(nowSeconds).map((t) => [t.id, t.expiresAt]));
  const logins = new Map(store.liveLogins(nowSeconds).map((l) => [l.id, l.expiresAt]));
  const forgetExpired = (entries: Map<string, number>, now: number): void => {
    for (const [id, exp] of entries) if (exp < now) entries.delete(id);
  };
  return {
    isRevoked: (token) => tokens.has(token.jti) || (token.loginId !== undefined && logins.has(token.loginId)),
    revoke(jti, expiresAt) {
      store.add({ id: jti, expiresAt });
      tokens.set(jti, expiresAt);
    },
    revokeLogin(loginId, expiresAt) {
      store.addLogin({ id: loginId, expiresAt });
      logins.set(loginId, Math.max(expiresAt, logins.get(loginId) ?? 0));
    },
    purge(now) {
      store.purgeExpired(now);
      forgetExpired(tokens, now);
      forgetExpired(logins, now);
    },
  };
}

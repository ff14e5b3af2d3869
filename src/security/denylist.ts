/**
 * Revoked access tokens, in memory for the per-request check and in the store so that a restart
 * keeps them. TokenActor is the only writer; the resource server only reads.
 */
import type { RevocationStore } from '../stores/revocation-store.ts';

export interface Denylist {
  isRevoked(jti: string): boolean;
  /** Refuses `jti` until `expiresAt` (epoch seconds). */
  revoke(jti: string, expiresAt: number): void;
  /** Forgets entries whose tokens have expired anyway. */
  purge(nowSeconds: number): void;
}

export function createDenylist(store: RevocationStore, nowSeconds = Math.floor(Date.now() / 1000)): Denylist {
  const revoked = new Map(store.live(nowSeconds).map((t) => [t.jti, t.expiresAt]));
  return {
    isRevoked: (jti) => revoked.has(jti),
    revoke(jti, expiresAt) {
      store.add({ jti, expiresAt });
      revoked.set(jti, expiresAt);
    },
    purge(now) {
      store.purgeExpired(now);
      for (const [jti, exp] of revoked) if (exp < now) revoked.delete(jti);
    },
  };
}

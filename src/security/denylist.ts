/**
 * Revoked access tokens (by `jti`) and revoked logins (by login id: every access token of the
 * login), held in memory for the per-request check. The store is the truth, and other processes
 * (the server's workers, another instance on the same data, the REPL) add to it: before every
 * answer the store is asked whether anything may have changed (SQLite: a counter read; MongoDB:
 * whether `security.revocation-sync-ms` has passed), and if so the entries added since the last
 * read are pulled in. A revocation acknowledged by any process is thus honoured by
 * every other on its next request, and a restart starts from the store.
 */
import { secondsClock } from './epoch.ts';
import type { RevocationStore } from '../stores/revocation-store.ts';

/** What the denylist needs to know of an access token. */
export interface Revocable {
  readonly jti: string;
  /** The login the token was issued in (its `sid` claim); tokens issued before logins were named have none. */
  readonly loginId: string | undefined;
  /**
   * The account it was minted from (its id) and the account's security version then; undefined in
   * a client's own token (client_credentials), which speaks for no account.
   */
  readonly accountId?: number | undefined;
  readonly accountVersion?: number | undefined;
  /** A client's own token (client_credentials): no account to check. */
  readonly clientToken?: boolean | undefined;
}

export interface Denylist {
  /**
   * Whether every check reads what any process added before it, account changes included (the
   * store's `seesEveryWrite`); otherwise another process's entry may be read only later.
   */
  readonly seesEveryWrite: boolean;
  /** The token itself, or its whole login, was revoked (by this process or another). */
  isRevoked(token: Revocable): Promise<boolean>;
  /**
   * The same, answered at once while the store has nothing new (the usual case); undefined when
   * the new entries must be read first (their read is then under way: {@link Denylist.isRevoked} waits for it).
   */
  revokedNow(token: Revocable): boolean | undefined;
  /** Refuses `jti` (of the login `loginId`, when it has one) until `expiresAt` (epoch seconds). */
  revoke(jti: string, expiresAt: number, loginId?: string): Promise<void>;
  /** How many tokens of the login were revoked one by one and are still refused at `now`, by any process. */
  revokedTokensOf(loginId: string, now: number): Promise<number>;
  /**
   * Refuses every access token of the login until `expiresAt` (epoch seconds), and (through
   * {@link Denylist.loginRevoked}) every refresh token: one write, so that a login is revoked
   * whole or not at all.
   */
  revokeLogin(loginId: string, expiresAt: number): Promise<void>;
  /**
   * Takes note of an account change this process wrote: its access tokens minted at a version below
   * `belowVersion` are refused from now on. The entry itself is written by the change, in the same
   * write (see `AccountStore`); other processes read it as they read any revocation.
   */
  accountMoved(accountId: number, belowVersion: number): void;
  /** Whether the login was revoked, by any process: asks the store itself, never a copy. */
  loginRevoked(loginId: string): Promise<boolean>;
  /** Forgets entries whose tokens have expired anyway (in the store, {@link STORE_RETENTION_S} later). */
  purge(nowSeconds: number): Promise<void>;
}

const nowSeconds = secondsClock();

/**
 * Seconds an expired entry stays in the store: this process forgets an entry by its own clock,
 * but another process whose clock runs behind (up to this much) may still need it at start-up.
 */
export const STORE_RETENTION_S = 3600;

export function createDenylist(store: RevocationStore, now: () => number = nowSeconds): Denylist {
  const revoked = { token: new Map<string, number>(), login: new Map<string, number>() };
  /** Account id → the lowest security version its tokens may carry, and until when that holds. */
  const accounts = new Map<number, { belowVersion: number; expiresAt: number }>();
  const moved = (accountId: number, belowVersion: number, expiresAt: number): void => {
    const known = accounts.get(accountId);
    accounts.set(accountId, {
      belowVersion: Math.max(belowVersion, known?.belowVersion ?? 0),
      expiresAt: Math.max(expiresAt, known?.expiresAt ?? 0),
    });
  };
  let cursor = 0;
  /** The pull under way, which every check waits for: one read of the store however many ask. */
  let pulling: Promise<void> | undefined;
  const pull = (): Promise<void> => {
    pulling ??= store
      .since(cursor, now())
      .then((added) => {
        for (const r of added.revocations)
          if (r.kind === 'account') {
            // Entries of an older form (by username, no version) cover tokens refused anyway.
            if (r.belowVersion !== undefined && /^[1-9][0-9]*$/.test(r.id))
              moved(Number(r.id), r.belowVersion, r.expiresAt);
          } else revoked[r.kind].set(r.id, Math.max(r.expiresAt, revoked[r.kind].get(r.id) ?? 0));
        cursor = added.cursor;
      })
      .finally(() => {
        pulling = undefined;
      });
    return pulling;
  };
  /** Minted from an account at a version since moved past; an account's token naming no account is refused. */
  const cut = (token: Revocable): boolean => {
    if (token.clientToken === true) return false;
    if (token.accountId === undefined || token.accountVersion === undefined) return true;
    const account = accounts.get(token.accountId);
    return account !== undefined && token.accountVersion < account.belowVersion;
  };
  const listed = (token: Revocable): boolean =>
    revoked.token.has(token.jti) || (token.loginId !== undefined && revoked.login.has(token.loginId)) || cut(token);
  const forgetExpired = (entries: Map<string, number>, at: number): void => {
    for (const [id, exp] of entries) if (exp < at) entries.delete(id);
  };
  return {
    seesEveryWrite: store.seesEveryWrite,
    async isRevoked(token) {
      if (store.changed()) await pull();
      else if (pulling) await pulling;
      return listed(token);
    },
    revokedNow(token) {
      if (store.changed()) {
        void pull().catch(() => {}); // its failure reaches whoever waits for it through isRevoked
        return undefined;
      }
      return pulling ? undefined : listed(token);
    },
    async revoke(jti, expiresAt, loginId) {
      await store.add({ kind: 'token', id: jti, expiresAt, loginId });
      revoked.token.set(jti, expiresAt);
    },
    async revokeLogin(loginId, expiresAt) {
      await store.add({ kind: 'login', id: loginId, expiresAt });
      revoked.login.set(loginId, Math.max(expiresAt, revoked.login.get(loginId) ?? 0));
    },
    accountMoved(accountId, belowVersion) {
      moved(accountId, belowVersion, Number.MAX_SAFE_INTEGER);
    },
    revokedTokensOf: (loginId, at) => store.tokensOfLogin(loginId, at),
    loginRevoked: (loginId) => store.has('login', loginId, now()),
    async purge(at) {
      await store.purgeExpired(at - STORE_RETENTION_S);
      forgetExpired(revoked.token, at);
      forgetExpired(revoked.login, at);
      for (const [id, { expiresAt }] of accounts) if (expiresAt < at) accounts.delete(id);
    },
  };
}

/**
 * Port: the signing-key set, shared by every process that serves one store. The records are kept
 * as written; what state each key is in at a given moment is derived from them by
 * `src/security/key-set.ts`, so every process reaches the same answer from the same records
 * without anyone having to write at an activation. Times are epoch seconds.
 *
 * The set holds two lineages, told apart by each record's `use`: the keys of access tokens and
 * those of id_tokens (OpenID Connect). Each lineage has a life of its own (one active key, its
 * rotations and retirements), and a {@link KeyStore} is one lineage of the set: it reads and
 * changes that lineage's records alone.
 */

/** Algorithms a key of the set may have. HS* only for a MAC key imported from an older data directory. */
export type KeyAlg = 'ES256' | 'ES384' | 'ES512' | 'RS256' | 'RS384' | 'RS512' | 'HS256' | 'HS384' | 'HS512';

/** What a key signs: access tokens (every key stored before id_tokens were signed), or id_tokens. */
export type KeyUse = 'access' | 'id_token';
export const KEY_USES = ['access', 'id_token'] as const satisfies readonly KeyUse[];

export interface KeyRecord {
  /** RFC 7638 thumbprint of the key: what tokens carry in their `kid` header. */
  readonly kid: string;
  readonly alg: KeyAlg;
  /** The lineage the key belongs to. */
  readonly use: KeyUse;
  /** The private key (or MAC secret) as a JWK in JSON, or that JSON sealed with `security.keys.encryption-secret`. */
  readonly secret: string;
  readonly createdAt: number;
  /** From this moment the key signs, until a key with a later `activatesAt` does. */
  readonly activatesAt: number;
  /** Set when `keys retire` took the key out: it verifies nothing from then on. */
  readonly removedAt: number | null;
  /** Who or what added the key, for the logs ("keys rotate by alice@host, pid 42"). */
  readonly createdBy: string;
  /** Who took it out. */
  readonly removedBy: string | null;
}

/** What a change makes of the set, and what it answers its caller. */
export interface KeyChange<T> {
  readonly records: readonly KeyRecord[];
  readonly result: T;
}

/** One lineage of the set (its records all of one `use`). */
export interface KeyStore {
  /** Every record of the lineage, in no particular order. */
  read(): Promise<readonly KeyRecord[]>;
  /**
   * Replaces the lineage with what `change` makes of its current records, atomically: of two
   * writers at once (two processes), the second sees the first's result. The other lineage is left
   * as it is. A `change` that throws refuses the change: nothing is written and the error is the
   * caller's.
   */
  update<T>(change: (current: readonly KeyRecord[]) => KeyChange<T>): Promise<T>;
  /**
   * False when nothing can have been written by another process since the last call on this
   * store: a cheap check made before every use of the lineage. May answer true needlessly, never
   * false wrongly. Each store answers for its own calls (the two lineages of a process are two
   * stores, so one's look never hides a change from the other).
   */
  changed(): boolean;
}

/** The two lineages of the set in one store. */
export type KeyLineages = { readonly [U in KeyUse]: KeyStore };

/**
 * Port: the signing-key set, shared by every process that serves one store. The records are kept
 * as written; what state each key is in at a given moment is derived from them by
 * `src/security/key-set.ts`, so every process reaches the same answer from the same records
 * without anyone having to write at an activation. Times are epoch seconds.
 */

/** Algorithms a key of the set may have. HS* only for a MAC key imported from an older data directory. */
export type KeyAlg = 'ES256' | 'ES384' | 'ES512' | 'RS256' | 'RS384' | 'RS512' | 'HS256' | 'HS384' | 'HS512';

export interface KeyRecord {
  /** RFC 7638 thumbprint of the key: what tokens carry in their `kid` header. */
  readonly kid: string;
  readonly alg: KeyAlg;
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

export interface KeyStore {
  /** Every record, in no particular order. */
  read(): Promise<readonly KeyRecord[]>;
  /**
   * Replaces the set with what `change` makes of the current one, atomically: of two writers at
   * once (two processes), the second sees the first's result. A `change` that throws refuses the
   * change: nothing is written and the error is the caller's.
   */
  update<T>(change: (current: readonly KeyRecord[]) => KeyChange<T>): Promise<T>;
  /**
   * False when nothing can have been written by another process since the last call: a cheap check
   * made before every use of the set. May answer true needlessly, never false wrongly.
   */
  changed(): boolean;
}

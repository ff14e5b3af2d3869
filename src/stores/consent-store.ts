/**
 * Port: the consents accounts gave clients at the authorization endpoint. Times are epoch seconds.
 *
 * No process keeps a copy: every question (is a scope allowed? which consents has an account?)
 * reads the store, so a consent withdrawn through any process or instance holds at once for all.
 */

/** What one account allowed one client: the scopes, every one it ever allowed and did not withdraw. */
export interface ConsentRecord {
  readonly accountId: number;
  readonly clientId: string;
  /** In the order they were first allowed. */
  readonly scopes: readonly string[];
  /** When the client was first allowed (since the last withdrawal). */
  readonly grantedAt: number;
  /** When scopes were last added. */
  readonly updatedAt: number;
}

export interface ConsentStore {
  find(accountId: number, clientId: string): Promise<ConsentRecord | undefined>;
  /**
   * Adds `scopes` to what the account allowed the client (a union: nothing allowed before is
   * dropped), creating the consent at `at` when there was none. Undefined when no account has
   * the id (nothing kept).
   */
  grant(accountId: number, clientId: string, scopes: readonly string[], at: number): Promise<ConsentRecord | undefined>;
  /** The account's consents, by client id. */
  list(accountId: number): Promise<readonly ConsentRecord[]>;
  /** Forgets what the account allowed the client; whether there was a consent. */
  withdraw(accountId: number, clientId: string): Promise<boolean>;
}

/** `given` with each scope of `added` it lacks appended. */
export const unionOf = (given: readonly string[], added: readonly string[]): string[] => [
  ...new Set([...given, ...added]),
];

/** Every store of a process, on one database: the embedded SQLite file, or MongoDB. */
import type { ActivityStore } from './activity-store.ts';
import type { AuthorizationCodeStore } from './authorization-code-store.ts';
import type { ConsentStore } from './consent-store.ts';
import type { ConsentTicketStore } from './consent-ticket-store.ts';
import type { AccountStore } from './account-store.ts';
import type { EmployeeStore } from './employee-store.ts';
import type { KeyLineages } from './key-store.ts';
import type { LoginThrottleStore } from './login-throttle-store.ts';
import type { RefreshTokenStore } from './refresh-token-store.ts';
import type { RevocationStore } from './revocation-store.ts';
import type { SessionStore } from './session-store.ts';
import type { UserStore } from './user-store.ts';

export interface Stores {
  /** Which database holds them: named by /ready and the logs. */
  readonly kind: 'SQLite' | 'MongoDB';
  readonly accounts: AccountStore;
  readonly refreshTokens: RefreshTokenStore;
  readonly revocations: RevocationStore;
  readonly users: UserStore;
  readonly activity: ActivityStore;
  readonly employees: EmployeeStore;
  readonly throttle: LoginThrottleStore;
  /**
   * The signing-key set, a store for each of its lineages: the access-token keys (unused while
   * configuration fixes the access key) and the id_token keys.
   */
  readonly keys: KeyLineages;
  readonly codes: AuthorizationCodeStore;
  /** What accounts allowed clients at the authorization endpoint. */
  readonly consents: ConsentStore;
  /** The consent tickets already decided with. */
  readonly tickets: ConsentTicketStore;
  /** The sign-in sessions of the authorization endpoint. */
  readonly sessions: SessionStore;
  /**
   * Makes the database ready for the stores (SQLite: migrations, done on open; MongoDB: the
   * indexes, idempotently), then runs `load` (the initial data) on an account store that may
   * already be used. Until this has succeeded, the stores' operations may be refused as
   * unavailable (MongoDB refuses them: nothing is written before its unique indexes exist).
   * Rejects with StoreUnavailableError when the database cannot be reached; may be called again.
   */
  prepare(load: (accounts: AccountStore) => Promise<void>): Promise<void>;
  /** Resolves when the database answers. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

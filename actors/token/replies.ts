/** TokenActor's larger reply values, apart from its protocol (which exports them). */

/** RFC 7662 introspection, in this project's casing; HTTP writes the wire names. */
export type Introspection =
  | { readonly active: false }
  | {
      readonly active: true;
      readonly tokenType: 'access_token' | 'refresh_token';
      readonly scope: readonly string[];
      readonly clientId: string;
      /** The account's username; for a client_credentials token, the client's id. */
      readonly username: string;
      /** A client_credentials token: its subject is the client, not an account. */
      readonly clientToken: boolean;
      readonly exp: number;
      readonly iat: number;
      /** Access tokens only. */
      readonly jti: string | undefined;
    };

/**
 * The password matched, but the account has not allowed the client every scope asked: no code
 * until the person consents (`AuthorizeConsented`, with the account's id and version read here).
 */
export interface ConsentNeeded {
  readonly consent: {
    readonly accountId: number;
    readonly accountVersion: number;
    readonly username: string;
    /** The scopes asked (every scope of the client when none was). */
    readonly scopes: readonly string[];
    /** Those of {@link scopes} the account had allowed the client before. */
    readonly granted: readonly string[];
  };
}

/** The grants' inputs, apart from TokenActor's protocol (which exports them). */
/**
 * What each grant type of the token endpoint is asked with, besides the (already authenticated)
 * client: the one table a grant is added to (its handler is TokenActor's `grants/table.ts`, its
 * form the token endpoint's).
 */
export interface GrantInputs {
  /** RFC 6749 §4.3: counted by the login throttle before the password is checked. */
  readonly password: {
    readonly username: string;
    readonly password: string;
    /** Undefined: every scope of the client. */
    readonly scope?: readonly string[] | undefined;
  };
  /** RFC 6749 §6: rotates the token; a token presented twice revokes its whole login. */
  readonly refresh_token: {
    readonly refreshToken: string;
    /** Undefined: the refresh token's scope; otherwise it may only narrow it. */
    readonly scope?: readonly string[] | undefined;
  };
  /** RFC 6749 §4.4: a token of the client itself, no refresh token, no roles. */
  readonly client_credentials: {
    /** Undefined: every scope of the client. */
    readonly scope?: readonly string[] | undefined;
  };
  /** RFC 6749 §4.1.3, RFC 7636: redeems a code once (its scope is the code's). */
  readonly authorization_code: {
    readonly code: string;
    readonly redirectUri: string;
    /** Required for a code issued with a PKCE challenge; refused for one issued without (RFC 9700 §4.8.2). */
    readonly codeVerifier?: string | undefined;
  };
}

export type GrantType = keyof GrantInputs;

/** The input of the grant type `K`, tagged with it. */
export type GrantOf<K extends GrantType> = { readonly [P in K]: { readonly grantType: P } & GrantInputs[P] }[K];

/** One grant's input, told apart by its `grantType`. */
export type Grant = GrantOf<GrantType>;

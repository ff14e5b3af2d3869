/**
 * TokenActor's grants (node-oidc-provider's lib/actions/grants): one file each, in one table keyed
 * by the `grant_type` the token endpoint is asked for, as the endpoint's form table is
 * (http/oauth/token.ts). Adding a grant is one entry in each, with its input in
 * `../grant-inputs.ts`. What they share: `issuing.ts` (the client's checks, minting), and the
 * password login of the password grant and the authorization endpoint's sign-in
 * (`password-login.ts`). Each runs beside the mailbox as one async function, its answer its result.
 */
import type { RegisteredGrant } from '../../../src/security/client-registry.ts';
import type { Command, GrantOf, GrantReply, GrantType } from '../protocol.ts';
import { createAuthorizationCode, type CodeDeps } from './authorization-code.ts';
import { createClientCredentials, type ClientCredentialsDeps } from './client-credentials.ts';
import type { GrantRequest } from './grant-request.ts';
import { createIssuing, type IssuingDeps } from './issuing.ts';
import { passwordGrant } from './password.ts';
import { createPasswordLogin, type PasswordCheckDeps } from './password-login.ts';
import { createRefresh, type RefreshDeps } from './refresh-token.ts';

export interface GrantDeps extends IssuingDeps, PasswordCheckDeps, CodeDeps, RefreshDeps, ClientCredentialsDeps {}

/** One handler per grant type, each given its own input: a grant type without one fails to compile. */
export type Grants = {
  readonly [K in GrantType & RegisteredGrant]: (grant: GrantOf<K>, request: GrantRequest) => Promise<GrantReply>;
};

/** What ending a login and bounding an account's logins take (src/security/logins.ts). */
export interface LoginEnds {
  readonly seconds: () => number;
  readonly revokeLogin: (loginId: string, loginExpiresAt?: number) => Promise<void>;
  /** Runs once a login's tokens are stored, before they are answered (its bounds). */
  readonly afterLogin: (accountId: number) => Promise<void>;
}

/** Hands a grant to its grant type's handler. */
const run = <K extends GrantType>(grants: Grants, grant: GrantOf<K>, request: GrantRequest): Promise<GrantReply> =>
  grants[grant.grantType](grant, request);

export function createGrants(deps: GrantDeps, logins: LoginEnds) {
  const { seconds, revokeLogin, afterLogin } = logins;
  const issuing = createIssuing(deps);
  const passwordLogin = createPasswordLogin(deps, issuing);
  const codes = createAuthorizationCode(deps, issuing, passwordLogin, seconds, (id) => revokeLogin(id), afterLogin);
  const { refreshGrant } = createRefresh(deps, issuing, seconds, revokeLogin);
  const { clientCredentialsGrant } = createClientCredentials(deps, issuing);

  const GRANTS = {
    password: passwordGrant(passwordLogin, issuing, afterLogin),
    refresh_token: refreshGrant,
    client_credentials: clientCredentialsGrant,
    authorization_code: codes.authorizationCodeGrant,
  } satisfies Grants;

  return {
    /** The token endpoint's grant, whatever its type. */
    onGrant: (msg: Extract<Command, { type: 'Grant' }>): Promise<GrantReply> =>
      run(GRANTS, msg.grant, { clientId: msg.clientId, address: msg.address }),
    /** The authorization endpoint's sign-in: a password login, then a code (`authorization-code.ts`). */
    onAuthorize: codes.onAuthorize,
    /** The authorization endpoint through a sign-in session: a code, or the password asked. */
    onAuthorizeSignedIn: codes.onAuthorizeSignedIn,
    /** The consent step after a sign-in: the consent recorded, then a code. */
    onAuthorizeConsented: codes.onAuthorizeConsented,
    /** The consent step's Deny: its ticket spent. */
    onDenyConsent: codes.onDenyConsent,
  };
}

/**
 * TokenActor's grants: one file each, in a table keyed by the `grant_type` the token endpoint is
 * asked for, each grant asked with its own message kind (the protocol's builders: `IssueToken`
 * for `password`, …). What they share: `issuing.ts` (the client's checks, minting), and the
 * BCrypt pipeline of the password grant and the authorization endpoint's sign-in
 * (`password-check.ts`).
 */
import type { Ref } from '../../../src/messaging/nact.ts';
import type { RegisteredGrant } from '../../../src/security/client-registry.ts';
import type { Command } from '../protocol.ts';
import { createAuthorizationCode, type CodeDeps } from './authorization-code.ts';
import { createClientCredentials, type ClientCredentialsDeps } from './client-credentials.ts';
import { createIssuing, type IssuingDeps } from './issuing.ts';
import { passwordLogin } from './password.ts';
import { createPasswordCheck, type Completion, type PasswordCheckDeps } from './password-check.ts';
import { createRefresh, type RefreshDeps } from './refresh-token.ts';

export type { Completion } from './password-check.ts';

export interface GrantDeps extends IssuingDeps, PasswordCheckDeps, CodeDeps, RefreshDeps, ClientCredentialsDeps {}

/** The message kind each grant type is asked with. */
export const GRANT_MESSAGES = {
  password: 'IssueToken',
  refresh_token: 'Refresh',
  client_credentials: 'ClientCredentials',
  authorization_code: 'RedeemCode',
} as const satisfies Record<RegisteredGrant, Command['type']>;

export type GrantType = keyof typeof GRANT_MESSAGES;
export type GrantMessage = Extract<Command, { type: (typeof GRANT_MESSAGES)[GrantType] }>;

type Handler<K extends GrantType> = (
  msg: Extract<GrantMessage, { type: (typeof GRANT_MESSAGES)[K] }>,
  self: Ref<Completion>,
) => Promise<void>;

/** One handler per grant type: a grant type without one fails to compile. */
type GrantTable = { readonly [K in GrantType]: Handler<K> };

const GRANT_TYPES = Object.fromEntries(Object.entries(GRANT_MESSAGES).map(([grant, kind]) => [kind, grant])) as Record<
  GrantMessage['type'],
  GrantType
>;

/** What ending a login and bounding an account's logins take (src/security/logins.ts). */
export interface LoginEnds {
  readonly seconds: () => number;
  readonly revokeLogin: (loginId: string, loginExpiresAt?: number) => Promise<void>;
  /** Runs once a login's tokens are stored, before they are answered (its bounds). */
  readonly afterLogin: (accountId: number) => Promise<void>;
}

export function createGrants(deps: GrantDeps, logins: LoginEnds) {
  const { seconds, revokeLogin, afterLogin } = logins;
  const issuing = createIssuing(deps);
  const codes = createAuthorizationCode(deps, issuing, seconds, (loginId) => revokeLogin(loginId), afterLogin);
  const checks = createPasswordCheck(deps, issuing, {
    IssueToken: passwordLogin(issuing, afterLogin),
    Authorize: codes.issue,
  });
  const { onRefresh } = createRefresh(deps, issuing, seconds, revokeLogin);
  const { onClientCredentials } = createClientCredentials(deps, issuing);

  const table: GrantTable = {
    password: async (msg, self) => checks.onLogin(msg, self),
    refresh_token: (msg) => onRefresh(msg),
    client_credentials: async (msg, self) => onClientCredentials(msg, self),
    authorization_code: (msg) => codes.onRedeemCode(msg),
  };

  /** Hands a grant's message to its grant type's handler. */
  const onGrant = (msg: GrantMessage, self: Ref<Completion>): Promise<void> =>
    (table[GRANT_TYPES[msg.type]] as (msg: GrantMessage, self: Ref<Completion>) => Promise<void>)(msg, self);

  return {
    onGrant,
    /** The authorization endpoint's sign-in: the password checked, then a code (`authorization-code.ts`). */
    onAuthorize: checks.onLogin,
    /** The consent step after a sign-in: the consent recorded, then a code. */
    onAuthorizeConsented: codes.onAuthorizeConsented,
    /** The consent step's Deny: its ticket spent. */
    onDenyConsent: codes.onDenyConsent,
    onLoginAdmitted: checks.onLoginAdmitted,
    onPasswordChecked: checks.onPasswordChecked,
  };
}

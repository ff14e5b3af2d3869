/**
 * The server's metadata, built once from the configuration: the RFC 8414 document and the OpenID
 * Connect Discovery 1.0 one. The OpenID document is the RFC 8414 one with what only an OpenID
 * Provider says added, so every field they share has one value: they cannot disagree.
 */
import { CLAIMS_SUPPORTED, OPENID_SCOPES } from '../../src/security/claims.ts';
import type { Client } from '../../src/security/clients.ts';
import { LOGOUT_PATH } from './logout.ts';
import { USERINFO_PATH } from './userinfo.ts';

const union = <T>(lists: readonly (readonly T[])[]): T[] => [...new Set(lists.flat())];

export interface ServerMetadata {
  /** `/.well-known/oauth-authorization-server` (RFC 8414). */
  readonly oauth: Readonly<Record<string, unknown>>;
  /** `/.well-known/openid-configuration` (OpenID Connect Discovery 1.0 §3). */
  readonly openid: Readonly<Record<string, unknown>>;
}

/**
 * Only what this server supports: no `*_auth_signing_alg_values_supported` (no JWT client
 * authentication), `end_session_endpoint` (RP-initiated logout) in the OpenID document alone, and the request
 * parameters it does not take said so, where Discovery's default would claim them.
 */
export function serverMetadata(issuer: string, clients: readonly Client[]): ServerMetadata {
  const authMethods = ['client_secret_basic', 'client_secret_post'];
  const publicClients = clients.some((c) => c.authMethod === 'none');
  const oauth = {
    issuer,
    token_endpoint: `${issuer}/oauth/token`,
    revocation_endpoint: `${issuer}/oauth/revoke`,
    introspection_endpoint: `${issuer}/oauth/introspect`,
    jwks_uri: `${issuer}/.well-known/jwks.json`,
    authorization_endpoint: `${issuer}/oauth/authorize`,
    grant_types_supported: union(clients.map((c) => c.grantTypes)),
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    code_challenge_methods_supported: ['S256'],
    authorization_response_iss_parameter_supported: true,
    // The OpenID scopes beside the clients' own: a client registers them to ask them.
    scopes_supported: union([OPENID_SCOPES, ...clients.map((c) => c.scopes)]),
    token_endpoint_auth_methods_supported: publicClients ? [...authMethods, 'none'] : authMethods,
    revocation_endpoint_auth_methods_supported: publicClients ? [...authMethods, 'none'] : authMethods,
    introspection_endpoint_auth_methods_supported: authMethods,
  };
  const openid = {
    ...oauth,
    userinfo_endpoint: `${issuer}${USERINFO_PATH}`,
    end_session_endpoint: `${issuer}${LOGOUT_PATH}`,
    subject_types_supported: ['public'],
    // id_tokens are signed RS256, the one algorithm every OpenID Provider must offer (Core §15.1).
    id_token_signing_alg_values_supported: ['RS256'],
    claims_supported: [...CLAIMS_SUPPORTED],
    // Discovery's default for request_uri_parameter_supported is true: said false, as it is.
    request_parameter_supported: false,
    request_uri_parameter_supported: false,
    claims_parameter_supported: false,
  };
  return { oauth: Object.freeze(oauth), openid: Object.freeze(openid) };
}

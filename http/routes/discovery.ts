import type { GrantType } from '../../src/config.ts';
import type { SigningKey } from '../../src/security/keys.ts';
import { OAuthError } from '../problems.ts';
import { PUBLIC, route, type Route } from '../routing.ts';

export interface DiscoveryRouteDeps {
  readonly key: SigningKey;
  readonly issuer: string;
  readonly grantTypes: readonly GrantType[];
  readonly scopes: readonly string[];
}

const JAVA_ALG = { RS256: 'SHA256withRSA', RS384: 'SHA384withRSA', RS512: 'SHA512withRSA' } as const;

/** Public key material and server metadata; a MAC key is never disclosed. */
export function discoveryRoutes(deps: DiscoveryRouteDeps): Route[] {
  const { key, issuer } = deps;

  const authMethods = ['client_secret_basic', 'client_secret_post'];
  // RFC 8414 metadata, only what this server supports (no *_auth_signing_alg_values_supported: no
  // JWT client authentication); it depends only on the configuration, so it is built once.
  const serverMetadata = {
    issuer,
    token_endpoint: `${issuer}/oauth/token`,
    revocation_endpoint: `${issuer}/oauth/revoke`,
    introspection_endpoint: `${issuer}/oauth/introspect`,
    jwks_uri: `${issuer}/.well-known/jwks.json`,
    grant_types_supported: deps.grantTypes,
    response_types_supported: [],
    scopes_supported: deps.scopes,
    token_endpoint_auth_methods_supported: authMethods,
    revocation_endpoint_auth_methods_supported: authMethods,
    introspection_endpoint_auth_methods_supported: authMethods,
  };
  return [
    route('GET', '/oauth/token_key', PUBLIC, async function tokenKey(ctx) {
      if (key.kind !== 'rsa')
        throw new OAuthError(403, 'access_denied', 'The signing key is a MAC key, which is never disclosed');
      ctx.body = { alg: JAVA_ALG[key.alg], value: key.publicPem };
    }),
    route('GET', '/.well-known/jwks.json', PUBLIC, async function jwks(ctx) {
      ctx.set('Cache-Control', 'public, max-age=300');
      ctx.body = { keys: key.kind === 'rsa' ? [key.publicJwk] : [] };
    }),
    route('GET', '/.well-known/oauth-authorization-server', PUBLIC, async function metadata(ctx) {
      ctx.body = serverMetadata;
    }),
  ];
}

import type { GrantType } from '../../src/config.ts';
import type { KeyRing } from '../../src/security/key-ring.ts';
import { OAuthError } from '../problems.ts';
import { PUBLIC, route, type Route } from '../routing.ts';

export interface DiscoveryRouteDeps {
  readonly keys: KeyRing;
  /** `Cache-Control: max-age` of the JWKS, seconds: at most the publish-ahead time of a new key. */
  readonly jwksMaxAge: number;
  readonly issuer: string;
  readonly grantTypes: readonly GrantType[];
  readonly scopes: readonly string[];
}

/** Spring's names of the algorithms, for `/oauth/token_key`. */
const JAVA_ALG: Readonly<Record<string, string>> = {
  RS256: 'SHA256withRSA',
  RS384: 'SHA384withRSA',
  RS512: 'SHA512withRSA',
  ES256: 'SHA256withECDSA',
  ES384: 'SHA384withECDSA',
  ES512: 'SHA512withECDSA',
};

/** Public key material and server metadata; a MAC key is never disclosed. */
export function discoveryRoutes(deps: DiscoveryRouteDeps): Route[] {
  const { keys, issuer } = deps;

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
      const key = await keys.signing();
      if (key.publicPem === undefined)
        throw new OAuthError(403, 'access_denied', 'The signing key is a MAC key, which is never disclosed');
      ctx.body = { alg: JAVA_ALG[key.alg], value: key.publicPem };
    }),
    route('GET', '/.well-known/jwks.json', PUBLIC, async function jwks(ctx) {
      const published = (await keys.keys()).flatMap(({ key }) => (key.publicJwk ? [key.publicJwk] : []));
      ctx.set('Cache-Control', `public, max-age=${deps.jwksMaxAge}`);
      ctx.body = { keys: published };
    }),
    route('GET', '/.well-known/oauth-authorization-server', PUBLIC, async function metadata(ctx) {
      ctx.body = serverMetadata;
    }),
  ];
}

import type { z } from 'zod';
import type { Client } from '../../src/security/clients.ts';
import type { KeyRing } from '../../src/security/key-ring.ts';
import { OAuthError } from '../problems.ts';
import { oauthError } from '../openapi/replies.ts';
import * as S from '../openapi/shapes.ts';
import { oauthErrors, route, type Route } from '../route-table.ts';
import { PUBLIC } from '../guards.ts';
import { serverMetadata } from './metadata.ts';

export interface DiscoveryRouteDeps {
  /** The access-token keys: `/oauth/token_key` shows the active one. */
  readonly keys: KeyRing;
  /** The id_token keys, published beside the access-token keys. */
  readonly idTokenKeys: KeyRing;
  /** `Cache-Control: max-age` of the JWKS, seconds: at most the publish-ahead time of a new key. */
  readonly jwksMaxAge: number;
  readonly issuer: string;
  readonly clients: readonly Client[];
}

const tag = 'secured';

/** Spring's names of the algorithms, for `/oauth/token_key`. */
const JAVA_ALG: Readonly<Record<string, string>> = {
  RS256: 'SHA256withRSA',
  RS384: 'SHA384withRSA',
  RS512: 'SHA512withRSA',
  ES256: 'SHA256withECDSA',
  ES384: 'SHA384withECDSA',
  ES512: 'SHA512withECDSA',
};

/** A public metadata document, built once: its only reply is 200 with `body`. */
const metadataRoute = (path: string, summary: string, schema: z.ZodType, body: Readonly<Record<string, unknown>>) =>
  route(
    { method: 'GET', path, access: PUBLIC, tag, summary, replies: { 200: { description: 'Metadata', schema } } },
    async function metadataDocument(ctx) {
      ctx.body = body;
    },
  );

/** Public key material and server metadata; a MAC key is never disclosed. */
export function discoveryRoutes(deps: DiscoveryRouteDeps): Route[] {
  const { keys } = deps;
  // It depends only on the configuration, so it is built once.
  const metadata = serverMetadata(deps.issuer, deps.clients);
  return [
    oauthErrors(
      route(
        {
          method: 'GET',
          path: '/oauth/token_key',
          access: PUBLIC,
          tag,
          summary: 'The public key that verifies access tokens, in PEM',
          replies: {
            200: { description: 'PEM public key (RSA or EC) and its Java algorithm name', schema: S.TokenKey },
            403: oauthError('The active key is a MAC key, never disclosed'),
          },
          errors: ['unavailable'],
        },
        async function tokenKey(ctx) {
          const key = await keys.signing();
          if (key.publicPem === undefined)
            throw new OAuthError(403, 'access_denied', 'The signing key is a MAC key, which is never disclosed');
          ctx.body = { alg: JAVA_ALG[key.alg], value: key.publicPem };
        },
      ),
    ),
    route(
      {
        method: 'GET',
        path: '/.well-known/jwks.json',
        access: PUBLIC,
        tag,
        summary: 'Every public key that verifies access tokens or id_tokens, as a JSON Web Key Set (RFC 7517)',
        replies: {
          200: {
            description:
              'The public keys that verify now, of access tokens and of id_tokens, each with kid, alg and use; MAC keys are never listed',
            schema: S.Jwks,
            headers: ['Cache-Control'],
          },
        },
        errors: ['unavailable'],
      },
      async function jwks(ctx) {
        const every = [...(await keys.keys()), ...(await deps.idTokenKeys.keys())];
        const published = every.flatMap(({ key }) => (key.publicJwk ? [key.publicJwk] : []));
        ctx.set('Cache-Control', `public, max-age=${deps.jwksMaxAge}`);
        ctx.body = { keys: published };
      },
    ),
    metadataRoute(
      '/.well-known/oauth-authorization-server',
      'Where the OAuth endpoints are and what they support (RFC 8414)',
      S.Metadata,
      metadata.oauth,
    ),
    metadataRoute(
      '/.well-known/openid-configuration',
      'The OpenID Provider metadata (OpenID Connect Discovery 1.0): the RFC 8414 metadata and UserInfo',
      S.OpenIdMetadata,
      metadata.openid,
    ),
  ];
}

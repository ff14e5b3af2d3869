/**
 * The registered OAuth clients: the original one from `security.jwt.*` and those of
 * `security.clients-file`, a JSON array of RFC 7591 client metadata, validated at start-up.
 */
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { BCRYPT_HASH, SCOPE_TOKEN, withoutBcryptPrefix } from './formats.ts';
import { typoOf } from '../spelling.ts';
import { plainWords } from '../fields.ts';

export type RegisteredGrant = 'authorization_code' | 'refresh_token' | 'client_credentials' | 'password';
export type AuthMethod = 'client_secret_basic' | 'client_secret_post' | 'none';
/**
 * Whether a person is asked before the client gets a code: `explicit` (the default) shows the
 * consent page until the account has allowed every scope asked; `implicit` (a first-party client)
 * never asks.
 */
export type ConsentMode = 'implicit' | 'explicit';

/** One entry of `security.clients-file`, as parsed (RFC 7591 names become camel case). */
export interface ClientRegistration {
  readonly clientId: string;
  readonly clientName: string | undefined;
  /** BCrypt hash; undefined for a public client (`token_endpoint_auth_method: none`). */
  readonly secretHash: string | undefined;
  /**
   * The one way the client authenticates; undefined when the entry names none: a confidential
   * client that may use either secret method, as every client could before methods were enforced.
   */
  readonly authMethod: AuthMethod | undefined;
  readonly redirectUris: readonly string[];
  /** Where RP-initiated logout may send the browser back (OpenID RP-Initiated Logout 1.0 §3.1). */
  readonly postLogoutRedirectUris: readonly string[];
  readonly grantTypes: readonly RegisteredGrant[];
  readonly scopes: readonly string[];
  readonly consent: ConsentMode;
  /**
   * `pkce_required` (default true): false lets a confidential client leave PKCE out of an OpenID
   * request that sends a nonce (RFC 9700 §2.1.1); a public client always uses PKCE.
   */
  readonly pkceRequired: boolean;
}

/** Loopback hosts an `http:` redirect URI may name (RFC 8252 §7.3, §8.3), as the URL parser writes them. */
const LOOPBACK = new Set(['127.0.0.1', '[::1]', 'localhost']);
/** Schemes that run or embed content rather than navigate to an application: never a redirect. */
const NOT_NAVIGABLE = new Set(['javascript:', 'data:', 'vbscript:', 'blob:', 'file:', 'about:', 'filesystem:']);
/** A private-use scheme in reverse domain name form, so with a period (RFC 8252 §7.1): `com.example.app`. */
const REVERSE_DOMAIN_SCHEME = /^[a-z][a-z0-9+-]*(?:\.[a-z0-9][a-z0-9+-]*)+:$/;

/**
 * Why `uri` cannot be a redirect URI, or undefined when it can: absolute, written exactly as it
 * will be compared (no space or control character a parser would drop), no fragment (RFC 6749
 * §3.1.2); `https:`, `http:` to a loopback host only, or a native application's private-use
 * scheme (RFC 8252 §7.1, §7.3, §8.3). Never a value from the URI in the answer.
 */
export function redirectUriProblem(uri: string): string | undefined {
  if (uri.includes('#')) return 'must be an absolute URI without a fragment';
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return 'must be an absolute URI without a fragment';
  }
  if (!/^[a-z][a-z0-9+.-]*:[^\s\p{Cc}]*$/iu.test(uri)) return 'must be an absolute URI without a fragment';
  const scheme = url.protocol;
  if (NOT_NAVIGABLE.has(scheme)) return `must not use the ${scheme} scheme, which is never a redirect`;
  if (scheme === 'https:' || scheme === 'http:') {
    if (!/^https?:\/\/[^/?#]/i.test(uri)) return 'must name a host after https:// or http://';
    if (scheme === 'http:' && !LOOPBACK.has(url.hostname))
      return 'http: is for a loopback host only (127.0.0.1, [::1], localhost); use https:';
    return undefined;
  }
  if (!REVERSE_DOMAIN_SCHEME.test(scheme))
    return 'must be https:, http: to a loopback host, or a private-use scheme in reverse domain name form (com.example.app:/callback)';
  return undefined;
}
/** A list of redirect URIs, each held to {@link redirectUriProblem}. */
const redirectUriList = () =>
  z
    .array(
      z.string().superRefine((uri, ctx) => {
        const problem = redirectUriProblem(uri);
        if (problem !== undefined) ctx.addIssue({ code: 'custom', message: problem });
      }),
    )
    .default([]);

/** The fields of an entry (RFC 7591 names): every other is refused, with the nearest named. */
const FIELDS = {
  client_id: z.string().regex(/^[\x21-\x7E]{1,128}$/, 'must be 1 to 128 printable ASCII characters'),
  client_name: z.string().max(200).optional(),
  client_secret: z
    .string()
    .regex(BCRYPT_HASH, 'must be a BCrypt hash ($2a$, $2b$ or $2y$), never the secret itself')
    .optional(),
  token_endpoint_auth_method: z.enum(['client_secret_basic', 'client_secret_post', 'none']).optional(),
  redirect_uris: redirectUriList(),
  post_logout_redirect_uris: redirectUriList(),
  grant_types: z
    .array(z.enum(['authorization_code', 'refresh_token', 'client_credentials', 'password']))
    .min(1, 'must name at least one grant')
    .default(['authorization_code']),
  scope: z
    .string()
    .default('')
    .transform((s) => [...new Set(s.split(' ').filter(Boolean))])
    .refine((scopes) => scopes.every((s) => SCOPE_TOKEN.test(s)), 'must be space-separated scope tokens'),
  consent: z.enum(['implicit', 'explicit']).default('explicit'),
  pkce_required: z.boolean().default(true),
};
const FIELD_NAMES = Object.keys(FIELDS);

const entry = z
  .strictObject(FIELDS)
  .superRefine((c, ctx) => {
    const isPublic = c.token_endpoint_auth_method === 'none';
    if (isPublic && c.client_secret !== undefined)
      ctx.addIssue({ code: 'custom', path: ['client_secret'], message: 'a public client (none) has no secret' });
    if (isPublic && !c.pkce_required)
      ctx.addIssue({ code: 'custom', path: ['pkce_required'], message: 'a public client (none) always uses PKCE' });
    if (!isPublic && c.client_secret === undefined)
      ctx.addIssue({ code: 'custom', path: ['client_secret'], message: 'is required for a confidential client' });
    for (const grant of ['client_credentials', 'password'] as const)
      if (isPublic && c.grant_types.includes(grant))
        ctx.addIssue({ code: 'custom', path: ['grant_types'], message: `a public client may not use ${grant}` });
    if (c.grant_types.includes('authorization_code') && c.redirect_uris.length === 0)
      ctx.addIssue({ code: 'custom', path: ['redirect_uris'], message: 'authorization_code needs a redirect URI' });
  })
  .transform((c): ClientRegistration => ({
    clientId: c.client_id,
    clientName: c.client_name,
    secretHash: c.client_secret === undefined ? undefined : withoutBcryptPrefix(c.client_secret),
    authMethod: c.token_endpoint_auth_method,
    redirectUris: c.redirect_uris,
    postLogoutRedirectUris: c.post_logout_redirect_uris,
    grantTypes: [...new Set(c.grant_types)],
    scopes: c.scope,
    consent: c.consent,
    pkceRequired: c.pkce_required,
  }));

const file = z.array(entry).superRefine((clients, ctx) => {
  const seen = new Set<string>();
  clients.forEach((c, i) => {
    if (seen.has(c.clientId)) ctx.addIssue({ code: 'custom', path: [i, 'client_id'], message: 'is registered twice' });
    seen.add(c.clientId);
  });
});

const where = (path: readonly PropertyKey[]): string =>
  path
    .map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`))
    .join('')
    .replace(/^\./, '');

/**
 * Where in the file, then what: `[1].redirect_uris[0]: must be …`; never a value from the file. An
 * unknown field is named with the one it likely meant: `[0].grant_type: is not a field of a
 * client; did you mean grant_types?`.
 */
const located = (issue: z.core.$ZodIssue): string[] => {
  if (issue.code !== 'unrecognized_keys') return [`${where(issue.path)}: ${issue.message}`];
  return issue.keys.map((key) => {
    const meant = typoOf(key, FIELD_NAMES);
    return `${where([...issue.path, key])}: is not a field of a client${meant === undefined ? '' : `; did you mean ${meant}?`}`;
  });
};

/**
 * Reads and validates the clients file; returns the problems (each naming where) instead of
 * clients when there are problems. An unreadable file or bad JSON is one problem.
 */
export function readClientsFile(path: string): readonly ClientRegistration[] | { readonly problems: string[] } {
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    const why = error instanceof SyntaxError ? 'not valid JSON' : ((error as NodeJS.ErrnoException).code ?? 'error');
    return { problems: [`cannot read ${path} (${why})`] };
  }
  const result = file.safeParse(json, { error: plainWords('client') });
  return result.success ? result.data : { problems: result.error.issues.flatMap(located) };
}

/** The registered OAuth clients and HTTP Basic client authentication (RFC 6749 §2.3.1). */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { AuthMethod, ConsentMode, RegisteredGrant } from './client-registry.ts';
import { isTooLong, type PasswordHasher } from './passwords.ts';

export interface Client {
  readonly clientId: string;
  /** Shown on the sign-in page; the id when unset. */
  readonly clientName?: string | undefined;
  /** BCrypt hash of the client secret; undefined for a public client, which never authenticates. */
  readonly secretHash: string | undefined;
  /**
   * The registered `token_endpoint_auth_method`, the only one the client may use; undefined when
   * it registered none: a confidential client that may send its secret either way.
   */
  readonly authMethod: AuthMethod | undefined;
  readonly grantTypes: readonly RegisteredGrant[];
  readonly scopes: readonly string[];
  /** Compared exactly (no prefix, no normalisation) with an authorization request's redirect_uri. */
  readonly redirectUris: readonly string[];
  /** Compared exactly with a logout request's post_logout_redirect_uri; undefined: none. */
  readonly postLogoutRedirectUris?: readonly string[] | undefined;
  /** Whether the authorization endpoint asks the person's consent; undefined: `explicit`. */
  readonly consent?: ConsentMode | undefined;
  /**
   * False: the client, a confidential one, may leave PKCE out of an OpenID request that sends a
   * nonce (RFC 9700 §2.1.1); undefined or true: every authorization request needs a challenge.
   */
  readonly pkceRequired?: boolean | undefined;
}

export interface ClientCredentials {
  readonly clientId: string;
  readonly clientSecret: string;
}

function formDecode(s: string): string {
  try {
    return decodeURIComponent(s.replace(/\+/g, ' '));
  } catch {
    return s;
  }
}

/** Parses `Basic base64(urlencode(id):urlencode(secret))`; undefined when malformed. */
export function parseBasic(header: string): ClientCredentials | undefined {
  const m = /^Basic +([A-Za-z0-9+/]+={0,2}) *$/i.exec(header);
  if (!m?.[1]) return undefined;
  const decoded = Buffer.from(m[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon <= 0) return undefined;
  return { clientId: formDecode(decoded.slice(0, colon)), clientSecret: formDecode(decoded.slice(colon + 1)) };
}

export interface ClientAuthenticator {
  /** The client these credentials authenticate, if any: BCrypt on the pool unless {@link verified} knows them. */
  (credentials: ClientCredentials): Promise<Client | undefined>;
  /**
   * The client whose secret this is, when this process has verified that very secret before; no
   * BCrypt, nothing awaited. Undefined means "not known here", not "wrong".
   */
  verified(credentials: ClientCredentials): Client | undefined;
  /**
   * Whether this process has verified a secret of `clientId`: then any other secret for it is
   * wrong (a client has one secret), known without BCrypt.
   */
  knowsSecretOf(clientId: string): boolean;
}

/**
 * Checks client credentials against the registrations. A secret that matched once is remembered
 * (by its SHA-256, never in clear; one per registered client, so bounded by the registrations), so
 * a client then authenticates with no BCrypt check, and {@link ClientAuthenticator.verified} can
 * answer synchronously. The remembered digest is compared in constant time.
 */
export function createClientAuthenticator(clients: readonly Client[], hasher: PasswordHasher): ClientAuthenticator {
  const verifiedSecrets = new Map<string, { readonly digest: Buffer; readonly client: Client }>();
  const digestOf = ({ clientId, clientSecret }: ClientCredentials): Buffer =>
    createHash('sha256').update(`${clientId}\0${clientSecret}`).digest();
  const verified = (credentials: ClientCredentials): Client | undefined => {
    if (isTooLong(credentials.clientSecret)) return undefined; // BCrypt would ignore everything past 72 bytes
    const known = verifiedSecrets.get(credentials.clientId);
    return known && timingSafeEqual(known.digest, digestOf(credentials)) ? known.client : undefined;
  };
  async function authenticateClient(credentials: ClientCredentials): Promise<Client | undefined> {
    if (isTooLong(credentials.clientSecret)) return undefined;
    const hit = verified(credentials);
    if (hit) return hit;
    const client = clients.find((c) => c.clientId === credentials.clientId);
    // An unknown or public client costs the same BCrypt check as a wrong secret, and fails.
    const hash = client?.secretHash ?? clients[0]?.secretHash ?? '';
    const matches = await hasher.verify(credentials.clientSecret, hash);
    if (!client || client.secretHash === undefined || !matches) return undefined;
    verifiedSecrets.set(client.clientId, { digest: digestOf(credentials), client });
    return client;
  }
  const knowsSecretOf = (clientId: string): boolean => verifiedSecrets.has(clientId);
  return Object.assign(authenticateClient, { verified, knowsSecretOf });
}

/** The registered OAuth clients and HTTP Basic client authentication (RFC 6749 §2.3.1). */
import { createHash } from 'node:crypto';
import type { Config } from '../config.ts';
import type { AuthMethod, RegisteredGrant } from './client-registry.ts';
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
}

/** The original client of `security.jwt.*` first, then those of `security.clients-file`. */
export function registeredClients(config: Config): readonly Client[] {
  const jwt = config.security.jwt;
  // Registers no method: it has always been used both with HTTP Basic and with its secret in the body.
  const original: Client = {
    clientId: jwt.clientId,
    secretHash: jwt.clientSecret,
    authMethod: undefined,
    grantTypes: jwt.grantType,
    scopes: [jwt.scopeRead, jwt.scopeWrite],
    redirectUris: [],
  };
  return [original, ...config.security.clientsFile];
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

const CACHE_LIMIT = 64;

/**
 * Checks client credentials against the registrations. A secret that matched once is remembered
 * (by its SHA-256, never in clear, bounded), so a token request costs one BCrypt check, not two.
 */
export function createClientAuthenticator(clients: readonly Client[], hasher: PasswordHasher) {
  const verified = new Map<string, Client>();
  return async function authenticateClient(credentials: ClientCredentials): Promise<Client | undefined> {
    if (isTooLong(credentials.clientSecret)) return undefined; // BCrypt would ignore everything past 72 bytes
    const key = createHash('sha256').update(`${credentials.clientId}\0${credentials.clientSecret}`).digest('base64url');
    const hit = verified.get(key);
    if (hit) return hit;
    const client = clients.find((c) => c.clientId === credentials.clientId);
    // An unknown or public client costs the same BCrypt check as a wrong secret, and fails.
    const hash = client?.secretHash ?? clients[0]?.secretHash ?? '';
    const matches = await hasher.verify(credentials.clientSecret, hash);
    if (!client || client.secretHash === undefined || !matches) return undefined;
    if (verified.size >= CACHE_LIMIT) verified.delete(verified.keys().next().value ?? '');
    verified.set(key, client);
    return client;
  };
}

export type ClientAuthenticator = ReturnType<typeof createClientAuthenticator>;

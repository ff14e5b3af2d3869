/**
 * Client authentication of the OAuth endpoints (HTTP Basic or client_secret_post, each client by its
 * registered method).
 */
import { createHash } from 'node:crypto';
import type { Context, Middleware } from 'koa';
import * as Token from '../../actors/token/protocol.ts';
import type { Ref } from '../../src/messaging/nact.ts';
import {
  parseBasic,
  type Client,
  type ClientAuthenticator,
  type ClientCredentials,
} from '../../src/security/clients.ts';
import type { LoginThrottle, Refusal } from '../../src/security/login-throttle.ts';
import { IN_FLIGHT_RETRY_SECONDS } from '../../src/security/throttle-counts.ts';
import { isTooLong, MAX_PASSWORD_BYTES } from '../../src/security/passwords.ts';
import { formBody, formParams } from '../middleware/body.ts';
import { OAuthError } from '../problems.ts';
import type { AppState } from '../state.ts';
import type { Logger } from '../../src/logger.ts';
import { securityEvent } from '../security-events.ts';
import { settle } from '../../src/security/login-attempts.ts';
import { invalidRequest, single } from './form.ts';

export interface OAuthRouteDeps {
  readonly token: Ref<Token.Command>;
  readonly throttle: LoginThrottle;
  /** The credential check of a confidential client: run here, in the guard, not by an actor. */
  readonly authenticateClient: ClientAuthenticator;
  readonly realm: string;
  readonly askTimeoutMs: number;
  readonly maxBodyBytes: number;
  /** The registered clients: a public one (`none`) is named by client_id alone. */
  readonly clients: readonly Client[];
  /** Where the security events go (`security-events.ts`). */
  readonly logger: Logger;
}

const QUERY_CREDENTIALS = [
  'client_id',
  'client_secret',
  'username',
  'password',
  'refresh_token',
  'token',
  'code',
  'code_verifier',
];

const challenge = (realm: string): Record<string, string> => ({ 'WWW-Authenticate': `Basic realm="${realm}"` });

function invalidClient(realm: string, description: string): OAuthError {
  return new OAuthError(401, 'invalid_client', description, challenge(realm));
}

/** Middleware for OAuth endpoints: no caching, and no credentials in the query string. */
async function noStoreNoQueryCredentials(ctx: Context, next: () => Promise<unknown>): Promise<void> {
  ctx.set({ 'Cache-Control': 'no-store', Pragma: 'no-cache' });
  const query = new URLSearchParams(ctx.querystring);
  if (QUERY_CREDENTIALS.some((name) => query.has(name)))
    throw invalidRequest('Credentials are not accepted in the query string');
  await next();
}

/** The public client a request names by client_id alone (no Authorization, no secret), if it does. */
function publicClient(ctx: Context, params: URLSearchParams, clients: readonly Client[]): Token.ClientView | undefined {
  const id = single(params, 'client_id');
  if (ctx.get('Authorization') !== '' || single(params, 'client_secret') !== undefined || id === undefined) return;
  const client = clients.find((c) => c.clientId === id && c.authMethod === 'none');
  return client && { clientId: client.clientId, grantTypes: client.grantTypes, scopes: client.scopes };
}

/** The way a request sent its client secret. */
type SecretMethod = 'client_secret_basic' | 'client_secret_post';

/** HTTP Basic, or client_id + client_secret in the body; never both. */
function clientCredentials(
  ctx: Context,
  params: URLSearchParams,
  realm: string,
): { readonly credentials: ClientCredentials; readonly method: SecretMethod } {
  const header = ctx.get('Authorization');
  const bodyId = single(params, 'client_id');
  const bodySecret = single(params, 'client_secret');
  if (header !== '' && bodySecret !== undefined) throw invalidRequest('Use one client authentication method, not two');
  if (header !== '') {
    const basic = parseBasic(header);
    if (!basic) throw invalidClient(realm, 'Malformed client credentials');
    if (bodyId !== undefined && bodyId !== basic.clientId)
      throw invalidRequest('client_id does not match the authenticated client');
    return { credentials: basic, method: 'client_secret_basic' };
  }
  if (bodyId === undefined || bodySecret === undefined) throw invalidClient(realm, 'Client authentication is required');
  return { credentials: { clientId: bodyId, clientSecret: bodySecret }, method: 'client_secret_post' };
}

/**
 * Whether `method` is the one `clientId` registered (RFC 6749 §2.3: a client uses only its
 * registered method); a client that registered none may use either.
 */
function registeredFor(clients: readonly Client[], clientId: string, method: SecretMethod): boolean {
  const registered = clients.find((c) => c.clientId === clientId)?.authMethod;
  return registered === undefined || registered === method;
}

/** 429 `too_many_requests` with `Retry-After`. */
export function tooManyRequests(wait: number, description: string): OAuthError {
  return new OAuthError(429, 'too_many_requests', description, { 'Retry-After': String(wait) });
}

/** A client authentication refused by the throttle: for failures, or for the attempts in flight. */
const refusedClient = ({ retryAfter, inFlight }: Refusal): OAuthError =>
  tooManyRequests(
    retryAfter,
    `Too many ${inFlight ? 'client authentications in flight' : 'failed client authentications'}; retry in ${retryAfter} seconds`,
  );

/** A secret's count and check: refused by the throttle, or the client it names, if any. */
type Checked = { readonly refused: Refusal } | { readonly client: Client | undefined };
/**
 * Checks under way, by the SHA-256 of what decides their outcome, and the clients held back (past
 * their count across addresses) whose secret is being checked: one at a time each.
 */
interface Underway {
  readonly checks: Map<string, Promise<Checked>>;
  readonly heldBack: Set<string>;
}

/**
 * Runs `check` once for requests alike in `parts` (address, method, client_id, secret) that arrive
 * while it is under way: they are one guess, so they are counted and checked once, and a client's
 * first burst at a new address is not refused for the in-flight count of its own requests.
 */
function once(underway: Underway, parts: readonly string[], check: () => Promise<Checked>): Promise<Checked> {
  const key = createHash('sha256').update(parts.join('\0')).digest('base64url');
  const running = underway.checks.get(key);
  if (running) return running;
  const started = check().finally(() => underway.checks.delete(key));
  underway.checks.set(key, started);
  return started;
}

/**
 * Runs `check` for a client held back, unless one of its secrets is being checked here already:
 * then it is refused for the attempt in flight. Past the client's count its right secret still
 * passes, so each guess costs a BCrypt check; this keeps that work to one check per client at a
 * time in each process, whatever the number of addresses guessing.
 */
async function oneAtATime(underway: Underway, clientId: string, check: () => Promise<Checked>): Promise<Checked> {
  if (underway.heldBack.has(clientId)) return { refused: { retryAfter: IN_FLIGHT_RETRY_SECONDS, inFlight: true } };
  underway.heldBack.add(clientId);
  try {
    return await check();
  } finally {
    underway.heldBack.delete(clientId);
  }
}

/**
 * Authenticates the client of the request; 401 invalid_client otherwise, and 429 before any
 * BCrypt work for an address past its count of failed client authentications. A client past its
 * count across addresses, at an address it never authenticated from, is held back, not locked
 * out: its right secret passes, a wrong one is refused with 429.
 *
 * A success costs no write: the counts are read, and a secret this process has verified before
 * passes uncounted (only a (client, address) pair this process has not written lately is written,
 * so that the address stays known for the client). Any other secret is counted (one write per
 * count) before BCrypt and settled as a password is. What lives in memory only for speed, the
 * verified secrets and the note of pairs written, is lost in a crash at no risk: the next request
 * is checked, counted and written as a first one is.
 */
async function authenticateClient(
  ctx: Context,
  params: URLSearchParams,
  deps: OAuthRouteDeps,
  confidential: boolean,
  underway: Underway,
): Promise<Token.ClientView> {
  const named = publicClient(ctx, params, deps.clients);
  // RFC 7662 §2.1: introspection is for clients that authenticate; a public client has no secret.
  if (named && confidential)
    throw invalidClient(deps.realm, 'A public client cannot use this endpoint: it needs client authentication');
  if (named) return named;
  const { credentials, method } = clientCredentials(ctx, params, deps.realm);
  // BCrypt would compare only the first 72 bytes: a longer secret is refused, not truncated.
  if (isTooLong(credentials.clientSecret)) {
    securityEvent(deps.logger, ctx, 'client.authentication_failed', { clientId: credentials.clientId });
    throw invalidClient(deps.realm, `Client secrets longer than ${MAX_PASSWORD_BYTES} bytes are not accepted`);
  }
  const throttled = (refusal: Refusal): OAuthError => {
    securityEvent(deps.logger, ctx, 'login.throttled', { clientId: credentials.clientId });
    return refusedClient(refusal);
  };
  // Read before anything, even a secret verified before: past the address's limit the right secret
  // and a wrong one get the same 429, so an address held back cannot learn which guess was right.
  const standing = await deps.throttle.readClient(credentials.clientId, ctx.ip);
  if ('refused' in standing) throw throttled(standing.refused);
  const { heldBack } = standing;
  // The method is judged once the secret is: until then an attempt learns nothing of the
  // registration, and a right secret sent the wrong way counts as a failure like a wrong one.
  const allowed = (c: Client | undefined): c is Client =>
    c !== undefined && registeredFor(deps.clients, c.clientId, method);
  const view = (c: Client): Token.ClientView => ({ clientId: c.clientId, grantTypes: c.grantTypes, scopes: c.scopes });
  // The very secret this process verified before is no guess: it passes without being counted.
  const known = deps.authenticateClient.verified(credentials);
  if (allowed(known)) {
    await deps.throttle.clientMatched(known.clientId, ctx.ip);
    return view(known);
  }
  // Held back, and this process knows the client's secret: this one is another, so wrong (no BCrypt).
  if (heldBack && deps.authenticateClient.knowsSecretOf(credentials.clientId)) throw throttled(heldBack);
  // Any other is counted before BCrypt, so that parallel guesses cannot run ahead of the count.
  const check = async (): Promise<Checked> => {
    const admission = await deps.throttle.beginClient(credentials.clientId, ctx.ip, heldBack !== undefined);
    if ('retryAfter' in admission) return { refused: admission };
    const client = await settle(admission.attempt, deps.authenticateClient(credentials), (c) =>
      allowed(c) ? 'succeeded' : 'failed',
    );
    return { client };
  };
  const parts = [ctx.ip, method, credentials.clientId, credentials.clientSecret];
  const checked = await once(underway, parts, () =>
    heldBack ? oneAtATime(underway, credentials.clientId, check) : check(),
  );
  if ('refused' in checked) throw throttled(checked.refused);
  const { client } = checked;
  if (!allowed(client)) {
    securityEvent(deps.logger, ctx, 'client.authentication_failed', { clientId: credentials.clientId });
    if (heldBack) throw throttled(heldBack);
    if (client) throw invalidClient(deps.realm, `The client is not registered for ${method} authentication`);
    throw invalidClient(deps.realm, 'Bad client credentials');
  }
  return view(client);
}

/**
 * The access check of `client` routes: no caching, no credentials in the query string, a form
 * body, and an authenticated client in `ctx.state.client` before the handler runs. With
 * `confidential`, a public client naming itself is refused (401 `invalid_client`): only a client
 * that proves its secret passes.
 */
export function clientAuthentication(
  deps: OAuthRouteDeps,
  { confidential = false }: { readonly confidential?: boolean } = {},
): Middleware<AppState> {
  const form = formBody(deps.maxBodyBytes);
  const underway: Underway = { checks: new Map(), heldBack: new Set() };
  return async function authenticateOAuthClient(ctx, next) {
    await noStoreNoQueryCredentials(ctx, () =>
      form(ctx, async () => {
        ctx.state.client = await authenticateClient(ctx, formParams(ctx), deps, confidential, underway);
        await next();
      }),
    );
  };
}

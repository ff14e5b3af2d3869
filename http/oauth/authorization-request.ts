/**
 * An authorization request (RFC 6749 §4.1.1 with RFC 7636 PKCE), read from the query or the posted
 * form. Its client and redirect URI are checked first: until both are known good, an error is a
 * page (an {@link AuthorizeError} without a target), never a redirect; after that it goes back to the client (one with its target).
 */
import type { CodeTerms } from '../../actors/token/protocol.ts';
import type { Client } from '../../src/security/clients.ts';
import type { ErrorReason } from './page-views.ts';
import { OAuthError } from '../problems.ts';
import { SCOPE_TOKEN } from '../../src/security/formats.ts';
import { isS256Challenge, mayOmitChallenge, PKCE_REQUIRED } from '../../src/security/pkce.ts';

export const REQUEST_PARAMS = [
  'response_type',
  'client_id',
  'redirect_uri',
  'scope',
  'state',
  'code_challenge',
  'code_challenge_method',
  // OpenID Connect: echoed in the id_token, so it travels through the forms to the code.
  'nonce',
  // The pages' language (OpenID Connect): carried through the forms so that every page keeps it.
  'ui_locales',
  // OpenID Connect: whether and when the sign-in session may stand in for the password.
  'prompt',
  'max_age',
  'id_token_hint',
] as const;

/**
 * The `prompt` values troupe honours (Core §3.1.2.1); `select_account` asks nothing more of it: one
 * account signs in at a time.
 */
const PROMPTS: ReadonlySet<string> = new Set(['none', 'login', 'consent', 'select_account']);

export interface RedirectTarget {
  readonly redirectUri: string;
  readonly state: string | undefined;
}

/**
 * A refused authorization request (400): with a `target`, it goes back to the client's redirect
 * URI; without one (the client or its redirect URI is not known good), it is shown on a page.
 */
export class AuthorizeError extends OAuthError {
  readonly target: RedirectTarget | undefined;
  /** Without a target: what the error page says went wrong, when the error code alone does not tell. */
  readonly reason: ErrorReason | undefined;
  constructor(error: string, description: string, target?: RedirectTarget, reason?: ErrorReason) {
    super(400, error, description);
    this.target = target;
    this.reason = reason;
  }
}

export interface AuthorizationRequest {
  readonly client: Client;
  readonly redirectUri: string;
  readonly state: string | undefined;
  /** Undefined: every scope of the client. */
  readonly scope: readonly string[] | undefined;
  /** Undefined only when the client may leave PKCE out of this request (`mayOmitChallenge`). */
  readonly codeChallenge: string | undefined;
  /** OpenID Connect's `nonce`, for the id_token; undefined when none was sent (or it was empty). */
  readonly nonce: string | undefined;
  /**
   * OpenID Connect's `prompt`: `none` (no page at all: a code through the session, or an error
   * back), `login` (the password, whatever the session), `consent` (the consent page, whatever
   * was allowed before, for a client that asks consent).
   */
  readonly prompt: ReadonlySet<string>;
  /** OpenID Connect's `max_age`: seconds since the password after which it is asked again. */
  readonly maxAge: number | undefined;
  /** OpenID Connect's `id_token_hint`, as sent (checked where the keys are). */
  readonly idTokenHint: string | undefined;
  /** The parameters as sent (those of {@link REQUEST_PARAMS}), for the form to send back. */
  readonly params: ReadonlyMap<string, string>;
  /** Every parameter of the query or form the request was read from. */
  readonly rawParams: URLSearchParams;
}

/** What a code is issued for, as TokenActor's `Authorize` and `AuthorizeConsented` take it. */
export const codeTerms = ({
  client,
  redirectUri,
  scope,
  codeChallenge,
  nonce,
  prompt,
}: AuthorizationRequest): CodeTerms => ({
  clientId: client.clientId,
  redirectUri,
  scope,
  codeChallenge,
  nonce,
  askConsent: prompt.has('consent'),
});

function only(params: URLSearchParams, name: string): string | undefined {
  const values = params.getAll(name);
  if (values.length > 1)
    throw new AuthorizeError(
      'invalid_request',
      `Parameter ${name} is repeated`,
      undefined,
      name === 'redirect_uri' ? 'redirect_uri' : 'request',
    );
  return values[0] === '' ? undefined : values[0];
}

function clientAndRedirect(params: URLSearchParams, clients: readonly Client[]) {
  const clientId = only(params, 'client_id');
  const client = clients.find((c) => c.clientId === clientId);
  if (clientId === undefined || !client) throw new AuthorizeError('invalid_client', 'Unknown client');
  const given = only(params, 'redirect_uri');
  // Exact string comparison: no prefix, no normalisation (RFC 9700 §4.1.3).
  if (given !== undefined && !client.redirectUris.includes(given))
    throw new AuthorizeError(
      'invalid_request',
      'redirect_uri is not registered for this client',
      undefined,
      'redirect_uri',
    );
  // OpenID Connect makes it required (Core §3.1.2.1); plain OAuth may leave out the one registered.
  const openId = (params.get('scope') ?? '').split(' ').includes('openid');
  if (given === undefined && openId)
    throw new AuthorizeError(
      'invalid_request',
      'Missing parameter: redirect_uri (required in an OpenID request)',
      undefined,
      'redirect_uri',
    );
  const redirectUri = given ?? (client.redirectUris.length === 1 ? client.redirectUris[0] : undefined);
  if (redirectUri === undefined)
    throw new AuthorizeError('invalid_request', 'Missing parameter: redirect_uri', undefined, 'redirect_uri');
  return { client, redirectUri };
}

function requestedScope(raw: string | undefined, client: Client): readonly string[] | undefined {
  if (raw === undefined) return undefined;
  const scope = [...new Set(raw.split(' ').filter(Boolean))];
  if (scope.length === 0 || !scope.every((s) => SCOPE_TOKEN.test(s))) throw new Error('Malformed scope');
  const wider = scope.filter((s) => !client.scopes.includes(s));
  if (wider.length > 0) throw new Error(`Invalid scope: ${wider.join(' ').slice(0, 200)}`);
  return scope;
}

/**
 * Whether a POST to the authorization endpoint is an authorization request itself (Core §3.1.2.1
 * allows one by POST), not the sign-in form's post: it carries none of the form's own fields.
 */
export const isRequestByPost = (params: URLSearchParams): boolean =>
  !params.has('csrf_token') && !params.has('username') && !params.has('password');

/** The checked request; throws {@link AuthorizeError}. */
export function readAuthorizationRequest(params: URLSearchParams, clients: readonly Client[]): AuthorizationRequest {
  const { client, redirectUri } = clientAndRedirect(params, clients);
  const states = params.getAll('state');
  const state = states.length === 1 ? states[0] : undefined;
  const back = (error: string, description: string) => new AuthorizeError(error, description, { redirectUri, state });
  const repeated = REQUEST_PARAMS.find((name) => params.getAll(name).length > 1);
  if (repeated !== undefined) throw back('invalid_request', `Parameter ${repeated} is repeated`);
  const value = (name: string): string | undefined => params.get(name) || undefined;
  const responseType = value('response_type');
  if (responseType === undefined) throw back('invalid_request', 'Missing parameter: response_type');
  if (responseType !== 'code') throw back('unsupported_response_type', 'Only response_type=code is supported');
  if (!client.grantTypes.includes('authorization_code'))
    throw back('unauthorized_client', 'The client may not use the authorization_code grant');
  const codeChallenge = value('code_challenge');
  if (codeChallenge !== undefined && value('code_challenge_method') !== 'S256')
    throw back('invalid_request', 'code_challenge_method must be S256');
  if (codeChallenge !== undefined && !isS256Challenge(codeChallenge))
    throw back('invalid_request', 'Malformed code_challenge');
  let scope: readonly string[] | undefined;
  try {
    scope = requestedScope(value('scope'), client);
  } catch (error) {
    // Without a challenge, PKCE is what is refused first, as for every client.
    if (codeChallenge === undefined) throw back('invalid_request', PKCE_REQUIRED);
    throw back('invalid_scope', (error as Error).message);
  }
  const nonce = value('nonce');
  // Only a confidential client registered without it, in an OpenID request with a nonce (RFC 9700 §2.1.1).
  if (codeChallenge === undefined && !mayOmitChallenge(client, scope, nonce))
    throw back('invalid_request', PKCE_REQUIRED);
  const sent = new Map(REQUEST_PARAMS.flatMap((name) => (params.has(name) ? [[name, params.get(name) ?? '']] : [])));
  const prompt = new Set((value('prompt') ?? '').split(' ').filter(Boolean));
  const unknown = [...prompt].find((p) => !PROMPTS.has(p));
  if (unknown !== undefined) throw back('invalid_request', `Unsupported prompt value: ${unknown.slice(0, 40)}`);
  if (prompt.has('none') && prompt.size > 1) throw back('invalid_request', 'prompt=none cannot be combined');
  const maxAgeText = value('max_age');
  if (maxAgeText !== undefined && !/^\d{1,9}$/.test(maxAgeText))
    throw back('invalid_request', 'max_age must be a non-negative whole number of seconds');
  const maxAge = maxAgeText === undefined ? undefined : Number(maxAgeText);
  const idTokenHint = value('id_token_hint');
  return {
    client,
    redirectUri,
    state,
    scope,
    codeChallenge,
    nonce,
    prompt,
    maxAge,
    idTokenHint,
    params: sent,
    rawParams: params,
  };
}

/** The redirect URI with `extra` added to its query (its own query kept). */
export function redirectTo(redirectUri: string, extra: Record<string, string | undefined>): string {
  const url = new URL(redirectUri);
  for (const [name, value] of Object.entries(extra)) if (value !== undefined) url.searchParams.append(name, value);
  return url.href;
}

/**
 * An RP-initiated logout request (OpenID Connect RP-Initiated Logout 1.0 §2), read from the query
 * or the posted form. Everything is checked before anything is done: an `id_token_hint` must be an
 * id_token of this server (expired or not), `client_id` must be its audience, and a
 * `post_logout_redirect_uri` must be one the client registered, exactly, the client being known
 * from `client_id` or the hint. A refusal is the error page, never a redirect, and names no value
 * of the request. `logout_hint` and unknown parameters are ignored.
 */
import type { Client } from '../../src/security/clients.ts';
import { readHint } from '../../src/security/id-token.ts';
import type { KeyRing } from '../../src/security/key-ring.ts';
import { AuthorizeError } from './authorization-request.ts';
import type { ErrorReason } from './page-views.ts';

/** The parameters read; each may be sent once. */
export const LOGOUT_PARAMS = ['id_token_hint', 'client_id', 'post_logout_redirect_uri', 'state', 'ui_locales'] as const;

export interface LogoutRequest {
  /** The subject of a valid `id_token_hint`; undefined when none was sent. */
  readonly subject: string | undefined;
  /** The client asking, from `client_id` or the hint's audience; undefined when neither tells. */
  readonly client: Client | undefined;
  /** A registered `post_logout_redirect_uri` of {@link client}, as sent. */
  readonly redirectUri: string | undefined;
  readonly state: string | undefined;
  /**
   * The checked request as the confirmation form sends it back: `client_id` (the client, however
   * it was known), `post_logout_redirect_uri`, `state`, `ui_locales`; never the hint.
   */
  readonly form: ReadonlyMap<string, string>;
}

export interface LogoutRequestDeps {
  readonly clients: readonly Client[];
  readonly idTokenKeys: Pick<KeyRing, 'verifying'>;
  readonly issuer: string;
}

const refused = (description: string, reason: ErrorReason = 'request'): AuthorizeError =>
  new AuthorizeError('invalid_request', description, undefined, reason);

/** The checked request; throws an {@link AuthorizeError} without a target (the error page). */
export async function readLogoutRequest(params: URLSearchParams, deps: LogoutRequestDeps): Promise<LogoutRequest> {
  const repeated = LOGOUT_PARAMS.find((name) => params.getAll(name).length > 1);
  if (repeated !== undefined) throw refused(`Parameter ${repeated} is repeated`);
  const value = (name: (typeof LOGOUT_PARAMS)[number]): string | undefined => params.get(name) || undefined;
  const hintText = value('id_token_hint');
  const hint = hintText === undefined ? undefined : await readHint(hintText, deps.idTokenKeys, deps.issuer);
  if (hintText !== undefined && hint === undefined) throw refused('id_token_hint is not an id_token of this server');
  const clientId = value('client_id');
  if (clientId !== undefined && hint !== undefined && !hint.audience.includes(clientId))
    throw refused('client_id is not the audience of id_token_hint');
  const named = clientId ?? (hint?.audience.length === 1 ? hint.audience[0] : undefined);
  const client = named === undefined ? undefined : deps.clients.find((c) => c.clientId === named);
  if (clientId !== undefined && client === undefined)
    throw new AuthorizeError('invalid_client', 'Unknown client', undefined, 'unknown_client');
  const redirectUri = value('post_logout_redirect_uri');
  if (redirectUri !== undefined && client === undefined)
    throw refused('post_logout_redirect_uri needs client_id or id_token_hint to name the client', 'redirect_uri');
  // Exact string comparison: no prefix, no normalisation, no query added.
  if (redirectUri !== undefined && !(client?.postLogoutRedirectUris ?? []).includes(redirectUri))
    throw refused('post_logout_redirect_uri is not registered for this client', 'redirect_uri');
  const state = value('state');
  const uiLocales = value('ui_locales');
  const form = new Map<string, string>();
  if (client !== undefined) form.set('client_id', client.clientId);
  if (redirectUri !== undefined) form.set('post_logout_redirect_uri', redirectUri);
  if (state !== undefined) form.set('state', state);
  if (uiLocales !== undefined) form.set('ui_locales', uiLocales);
  return { subject: hint?.subject, client, redirectUri, state, form };
}

/**
 * The route table as the route modules write it: each route's method, path, access and error body
 * (`route`, the access factories, `oauthErrors`, `changesState`). Mounting and running the routes
 * is `dispatch.ts`'s part; the declarations here are all a route module needs.
 */
import type { Middleware } from 'koa';
import type { ClientView } from '../actors/token/protocol.ts';
import type { AppState } from './state.ts';

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** Who may run a route. */
export type Access =
  /** Anyone: operations, discovery, the API description. */
  | { readonly kind: 'public' }
  /**
   * An OAuth client that authenticates (HTTP Basic or client_secret_post) before the handler runs;
   * a public client (`none`), named by client_id alone, too, unless the route is `confidential`.
   */
  | { readonly kind: 'client'; readonly confidential?: true }
  /**
   * A valid bearer token, carrying `scope` when one is named, whose holder has `role` when one is
   * named: both checked before the handler runs. A route that names a role is never open, even
   * with `security.enabled=false`.
   */
  | { readonly kind: 'token'; readonly scope?: string | undefined; readonly role?: string | undefined }
  /** A valid bearer token whose holder has `role`, checked after the handler has run (post-authorization). */
  | { readonly kind: 'role'; readonly role: string };

export const PUBLIC: Access = { kind: 'public' };
export const CLIENT: Access = { kind: 'client' };
/** A client that authenticates with its secret: a public client is refused (401 `invalid_client`). */
export const CONFIDENTIAL_CLIENT: Access = { kind: 'client', confidential: true };
export const bearer = (scope?: string): Access => ({ kind: 'token', scope });
/** A token with `scope` whose holder has `role`, checked before the handler. */
export const bearerWithRole = (scope: string, roleName: string): Access => ({ kind: 'token', scope, role: roleName });
export const role = (name: string): Access => ({ kind: 'role', role: name });

/** What a route's middleware sees besides Koa's context: the path parameters. */
export interface RouteParams {
  params: Record<string, string>;
}
export type RouteMiddleware = Middleware<AppState, RouteParams>;

/**
 * The body every error of a route is rendered in: RFC 9457 problem details, or RFC 6749 §5.2
 * `{error, error_description}` for the OAuth endpoints. The route declares it, so the error
 * handler and the API description read the same decision.
 */
export type ErrorFormat = 'problem' | 'oauth';

/** A route as the route modules declare it: nothing runs without an {@link Access}. */
export interface Route {
  readonly method: Method;
  /** Koa form: `/api/employee/:id`. */
  readonly path: string;
  readonly access: Access;
  /** OAuth JSON for a client-authenticated route (and any route marked {@link oauthErrors}), else problem+json. */
  readonly errorFormat: ErrorFormat;
  /** Body parsers, then the handler. */
  readonly run: readonly RouteMiddleware[];
  /**
   * A GET route whose handler writes (the original service's create-by-query): HEAD, a safe
   * method, does not run it (405).
   */
  readonly changesState?: true;
}

export const route = (method: Method, path: string, access: Access, ...run: RouteMiddleware[]): Route => ({
  method,
  path,
  access,
  errorFormat: access.kind === 'client' ? 'oauth' : 'problem',
  run,
});

/** Declares a route of the OAuth endpoints that is not client-authenticated: its errors speak RFC 6749 §5.2 too. */
export const oauthErrors = (r: Route): Route => ({ ...r, errorFormat: 'oauth' });

/** Declares a GET route that changes state: HEAD of it is 405, never a run of its handler. */
export const changesState = (r: Route): Route => ({ ...r, changesState: true });

/** What a route declared besides its method, path and middleware: who may run it and its error body. */
export interface Declaration {
  readonly access: Access;
  readonly errorFormat: ErrorFormat;
}

/** A route as the router holds it, HEAD aside. */
export interface RouteInfo extends Declaration {
  readonly method: Method;
  readonly path: string;
}

/** The client a `client` route authenticated; a route that has none fails closed. */
export function clientOf(ctx: { readonly state: AppState }): ClientView {
  const client = ctx.state.client;
  if (client === undefined) throw new Error('no authenticated client on a client-authenticated route');
  return client;
}

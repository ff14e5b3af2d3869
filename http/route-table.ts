/**
 * The route table as the route modules write it: each route's method, path, access, error body,
 * input schemas and replies (`route`, the access factories, `oauthErrors`, `changesState`), the
 * one declaration that is checked, validated and described (`openapi/`). Mounting and running the
 * routes is `dispatch.ts`'s part.
 */
import type { Middleware } from 'koa';
import type { z } from 'zod';
import type { ClientView } from '../actors/token/protocol.ts';
import type { Replies, Tag } from './openapi/replies.ts';
import type { AppState } from './state.ts';
import {
  isDocumented,
  validated,
  type BodySpec,
  type Documented,
  type Handler,
  type InputOf,
  type JsonBody,
} from './validation.ts';

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
   * named, issued to a first-party client when `firstParty` is set: each checked before the handler
   * runs. A route that names a role, or that acts for the token's `holder`, is never open: with
   * `security.enabled=false` it is 403 `access_denied` before its body is read.
   */
  | {
      readonly kind: 'bearer';
      readonly scope?: string | undefined;
      readonly role?: string | undefined;
      readonly holder?: true | undefined;
      /**
       * The token's client (its verified `client_id`) must be one of the service's own
       * applications (`Guards.firstParty`); any other, an unknown one included, is 403
       * `insufficient_scope`.
       */
      readonly firstParty?: true | undefined;
    }
  /** A valid bearer token whose holder has `role`, checked after the handler has run (post-authorization). */
  | { readonly kind: 'role'; readonly role: string };

export const PUBLIC: Access = { kind: 'public' };
export const CLIENT: Access = { kind: 'client' };
/** A client that authenticates with its secret: a public client is refused (401 `invalid_client`). */
export const CONFIDENTIAL_CLIENT: Access = { kind: 'client', confidential: true };
export const bearer = (scope?: string): Access => ({ kind: 'bearer', scope });
/** A token with `scope` whose holder has `role`, checked before the handler. */
export const bearerWithRole = (scope: string, roleName: string): Access => ({ kind: 'bearer', scope, role: roleName });
export const role = (name: string): Access => ({ kind: 'role', role: name });
/**
 * Self-service: a token of any scope whose holder the route acts for (their own password, their
 * consents), issued to a first-party client; with security off, no one. A third-party
 * application's token, whatever its scope, never manages the account's security.
 */
export const SELF_SERVICE: Access = { kind: 'bearer', holder: true, firstParty: true };

/** What a route's middleware sees besides Koa's context: the path parameters. */
export interface RouteParams {
  params: Record<string, string>;
}
export type RouteMiddleware = Middleware<AppState, RouteParams>;
export type RouteContext = Parameters<RouteMiddleware>[0];

/**
 * The body every error of a route is rendered in: RFC 9457 problem details, or RFC 6749 §5.2
 * `{error, error_description}` for the OAuth endpoints. The route declares it, so the error
 * handler and the API description read the same decision.
 */
export type ErrorFormat = 'problem' | 'oauth';

/** What a route declares of its request and replies: validated from, and described by, the same schemas. */
export interface RouteDoc {
  readonly summary: string;
  readonly tag: Tag;
  readonly query?: z.ZodObject | Documented<z.ZodObject> | undefined;
  readonly params?: z.ZodObject | Documented<z.ZodObject> | undefined;
  readonly body?: JsonBody | Documented<BodySpec> | undefined;
  /** Takes an optional `If-Match: "<version>"` (412 when it names an older version). */
  readonly ifMatch?: true | undefined;
  /** Each status the route itself answers; 405 and 500, which every route can, are added by the document. */
  readonly replies: Replies;
  /** Left out of the API description (the assets of the /docs page). */
  readonly undocumented?: true | undefined;
}

/** A route as the route modules write it: a {@link RouteDoc} with its method, path, access and body parser. */
export interface RouteSpec extends RouteDoc {
  readonly method: Method;
  /** Koa form: `/api/employee/:id`. */
  readonly path: string;
  readonly access: Access;
  /** The body parser (`jsonBody`, `formBody`), run after the access check and before validation. */
  readonly parse?: RouteMiddleware | undefined;
}

/** A route's declaration but for its access and body parser, which come from the app's configuration. */
export type Declared = Omit<RouteSpec, 'access' | 'parse'>;

/** A route as the route modules declare it: nothing runs without an {@link Access}. */
export interface Route {
  readonly method: Method;
  /** Koa form: `/api/employee/:id`. */
  readonly path: string;
  readonly access: Access;
  /** OAuth JSON for a client-authenticated route (and any route marked {@link oauthErrors}), else problem+json. */
  readonly errorFormat: ErrorFormat;
  readonly doc: RouteDoc;
  /** The body parser, then the handler (behind the validation of its declared input). */
  readonly run: readonly RouteMiddleware[];
  /**
   * A GET route whose handler writes (the original service's create-by-query): HEAD, a safe
   * method, does not run it (405).
   */
  readonly changesState?: true;
}

/**
 * Declares a route. Its query, path parameters, JSON body and `If-Match` are validated from the
 * declared schemas after the access check and the body parser, before the handler, which gets them
 * typed as its second argument; a route that validates nothing runs its handler directly.
 */
export function route<const S extends RouteSpec>(spec: S, handler: Handler<InputOf<S>>): Route {
  const { method, path, access, parse, ...doc } = spec;
  // A JSON body validated with no parser to read it would refuse every request: a mistake of the table.
  if (doc.body !== undefined && !isDocumented(doc.body) && parse === undefined)
    throw new TypeError(`route ${method} ${path} validates a JSON body it does not parse`);
  const run = validated(doc, handler as (ctx: RouteContext, input: unknown) => unknown);
  return {
    method,
    path,
    access,
    errorFormat: access.kind === 'client' ? 'oauth' : 'problem',
    doc,
    run: parse ? [parse, run] : [run],
  };
}

/** Declares a route of the OAuth endpoints that is not client-authenticated: its errors speak RFC 6749 §5.2 too. */
export const oauthErrors = (r: Route): Route => ({ ...r, errorFormat: 'oauth' });

/** Declares a GET route that changes state: HEAD of it is 405, never a run of its handler. */
export const changesState = (r: Route): Route => ({ ...r, changesState: true });

/** What a route declared besides its method, path and middleware: who may run it, its error body and its description. */
export interface Declaration {
  readonly access: Access;
  readonly errorFormat: ErrorFormat;
  readonly doc: RouteDoc;
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

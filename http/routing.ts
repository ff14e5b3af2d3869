/**
 * Routes and who may run them. Every route declares its access when it is registered, and the
 * check runs as the first middleware of the route that matched: it can never disagree with the
 * route that runs, whatever spelling of the path reached it. Routing is exact (case-sensitive, no
 * trailing slash), and this is the only module that creates a Koa router (lint keeps it so).
 */
import Router from '@koa/router';
import type { Context, Middleware } from 'koa';
import type { ClientView } from '../actors/token/protocol.ts';
import type { Principal } from '../src/security/jwt.ts';
import { accessDenied, insufficientScope } from './middleware/bearer-auth.ts';
import { matchedRoute, type AppState } from './state.ts';

export type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

/** Who may run a route. */
export type Access =
  /** Anyone: operations, discovery, the API description. */
  | { readonly kind: 'public' }
  /** An OAuth client that authenticates (HTTP Basic or client_secret_post) before the handler runs. */
  | { readonly kind: 'client' }
  /** A valid bearer token, carrying `scope` when one is named. */
  | { readonly kind: 'token'; readonly scope?: string | undefined }
  /** A valid bearer token whose holder has `role`, checked after the handler has run (post-authorization). */
  | { readonly kind: 'role'; readonly role: string };

export const PUBLIC: Access = { kind: 'public' };
export const CLIENT: Access = { kind: 'client' };
export const token = (scope?: string): Access => ({ kind: 'token', scope });
export const role = (name: string): Access => ({ kind: 'role', role: name });

/** What a route's middleware sees besides Koa's context: the path parameters. */
export interface RouteParams { params: Record<string, string> }
export type RouteMiddleware = Middleware<AppState, RouteParams>;

/** A route as the route modules declare it: nothing runs without an {@link Access}. */
export interface Route {
  readonly method: Method;
  /** Koa form: `/api/employee/:id`. */
  readonly path: string;
  readonly access: Access;
  /** Body parsers, then the handler. */
  readonly run: readonly RouteMiddleware[];
}

export const route = (method: Method, path: string, access: Access, ...run: RouteMiddleware[]): Route => ({ method, path, access, run });

/** How the access checks reach the security parts; built once by the app. */
export interface Guards {
  /**
   * Verifies the request's bearer token and records the decision in `ctx.state.auth`; throws the
   * RFC 6750 400/401 for a missing or bad token. Undefined only when security is switched off.
   */
  authenticate(ctx: Context): Promise<Principal | undefined>;
  /** Authenticates the OAuth client of a form request into `ctx.state.client` (401 otherwise), then calls next. */
  readonly client: Middleware<AppState>;
  readonly realm: string;
}

const ACCESS = Symbol('access');
type Guard = Middleware<AppState> & { readonly [ACCESS]: Access };

const tagged = (access: Access, guard: Middleware<AppState>): Guard => Object.assign(guard, { [ACCESS]: access });

function guardOf(access: Access, guards: Guards): Guard {
  switch (access.kind) {
    case 'public':
      return tagged(access, async function publicRoute(_ctx, next) { await next(); });
    case 'client':
      return tagged(access, guards.client);
    case 'token':
      return tagged(access, async function requireToken(ctx, next) {
        const principal = await guards.authenticate(ctx);
        if (principal && access.scope !== undefined && !principal.scope.includes(access.scope)) throw insufficientScope(guards.realm, access.scope);
        await next();
      });
    case 'role':
      return tagged(access, async function requireRoleAfterHandler(ctx, next) {
        const principal = await guards.authenticate(ctx);
        await next();
        if (principal && !principal.authorities.includes(access.role)) {
          ctx.body = null;
          ctx.remove('Content-Type');
          throw accessDenied();
        }
      });
    default:
      throw new TypeError(`unknown access ${JSON.stringify(access satisfies never)}`);
  }
}

/** The access a layer's route declared, read off the layer itself. */
const accessOfLayer = (layer: { readonly stack: readonly unknown[] }): Access | undefined => {
  const first = layer.stack[0] as Partial<Guard> | undefined;
  return first?.[ACCESS];
};

/** A route as the router holds it, HEAD aside. */
export interface RouteInfo {
  readonly method: Method;
  readonly path: string;
  readonly access: Access;
}

/**
 * Every route the router answers, from its own stack. Throws for a layer that declared no access,
 * so a route added to the router any other way stops the start-up.
 */
export function routeTable(router: Router<AppState, RouteParams>): readonly RouteInfo[] {
  return router.stack.flatMap((layer) => {
    const access = accessOfLayer(layer);
    if (access === undefined) throw new TypeError(`route ${layer.methods.join(',')} ${String(layer.path)} declares no access`);
    return layer.methods.filter((m): m is Method => m !== 'HEAD').map((method) => ({ method, path: String(layer.path), access }));
  });
}

/** One router for every route, exact matching, each route behind the check of its own declaration. */
export function mountRoutes(routes: readonly Route[], guards: Guards): Router<AppState, RouteParams> {
  const router = new Router<AppState, RouteParams>({ sensitive: true, strict: true });
  for (const r of routes) {
    if (typeof r.access !== 'object' || r.access === null) throw new TypeError(`route ${r.method} ${r.path} declares no access`);
    router.register(r.path, [r.method], [guardOf(r.access, guards), ...r.run]);
  }
  routeTable(router);
  return router;
}

/**
 * Names the route template of a request that never reached its route (a 405), so the request log
 * and the metrics label it by its route rather than as unmatched.
 */
export function nameUnroutedRequests(router: Router<AppState, RouteParams>): Middleware<AppState> {
  return async function nameRoute(ctx, next) {
    try {
      await next();
    } finally {
      if (matchedRoute(ctx) === undefined) {
        const layer = router.match(ctx.path, ctx.method).path.find((l) => l.methods.length > 0);
        if (layer) ctx.state.route = String(layer.path);
      }
    }
  };
}

/** The first path segment, decoded and lower-cased: what a lenient router or proxy might take for it. */
function firstSegment(path: string): string {
  const segment = path.split('/').find((s) => s !== '' && s !== '.' && s !== '..') ?? '';
  try {
    return decodeURIComponent(segment).toLowerCase();
  } catch {
    return segment.toLowerCase();
  }
}

/**
 * A request that ran no route (404, 405) under a prefix whose routes need a token is refused
 * without one (401, as Spring does), so that probing a secured prefix tells nothing without a
 * token. This only ever refuses: what a request may run is decided by its route alone.
 */
export function refuseUnroutedUnderSecuredPrefix(routes: readonly RouteInfo[], guards: Guards): Middleware<AppState> {
  const secured = new Set(routes.filter((r) => r.access.kind === 'token' || r.access.kind === 'role').map((r) => firstSegment(r.path)));
  return async function refuseUnrouted(ctx, next) {
    await next();
    const ran = (ctx as { routeMatched?: unknown }).routeMatched === true;
    if (ran || ctx.method === 'OPTIONS' || !secured.has(firstSegment(ctx.path))) return;
    const allow = ctx.response.get('Allow');
    ctx.remove('Allow'); // a 401 tells nothing about the methods
    await guards.authenticate(ctx);
    if (allow) ctx.set('Allow', allow);
  };
}

/** The client a `client` route authenticated; a route that has none fails closed. */
export function clientOf(ctx: { readonly state: AppState }): ClientView {
  const client = ctx.state.client;
  if (client === undefined) throw new Error('no authenticated client on a client-authenticated route');
  return client;
}

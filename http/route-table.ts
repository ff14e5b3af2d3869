/**
 * The route table: each route's method, path, access, error body, input schemas and replies
 * (`route`, `oauthErrors`, `changesState`), the one declaration that is checked, validated and
 * described (`openapi/`); and the one router that runs them (`mountRoutes`, `dispatch`), each
 * route behind the guard of its own access (`guards.ts`). Routing is exact (case-sensitive, no
 * trailing slash), and this is the only module that creates a Koa router (lint keeps it so).
 */
import Router from '@koa/router';
import type { Middleware, ParameterizedContext } from 'koa';
import type { ClientView } from '../actors/token/protocol.ts';
import { accessCheck, failClosed, type Access, type Guards } from './guards.ts';
import type { RouteError } from './openapi/error-replies.ts';
import type { Replies } from './openapi/replies.ts';
import { shuttingDown, type ErrorFormat } from './problems.ts';
import { routeLookup } from './route-lookup.ts';
import type { AppState, RouteContext, RouteMiddleware, RouteParams } from './state.ts';
import { isDocumented, validated, type Handler, type InputDeclaration, type InputOf } from './validation.ts';

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** The service a route belongs to: the document's tag. */
export type Tag = 'secured' | 'employee' | 'userdata' | 'operations';

/** What a route declares of its request and replies: validated from, and described by, the same schemas. */
export interface RouteDoc extends InputDeclaration {
  readonly summary: string;
  readonly tag: Tag;
  /**
   * Each answer the route gives besides its reply codes (its successes, a page, an error its form
   * reader raises); 405 and 500, which every route can, are added by the document.
   */
  readonly replies: Replies;
  /**
   * The reply codes the handler can answer with; the document takes each one's status, body and
   * words from the reply table, and adds what the route's access and declared input refuse.
   */
  readonly errors?: readonly RouteError[];
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

/** What a route declared besides its method, path and middleware: who may run it, its error body and its description. */
export interface Declaration {
  readonly access: Access;
  /** OAuth JSON for a client-authenticated route (and any route marked {@link oauthErrors}), else problem+json. */
  readonly errorFormat: ErrorFormat;
  readonly doc: RouteDoc;
}

/** A route as the router holds it, HEAD aside. */
export interface RouteInfo extends Declaration {
  readonly method: Method;
  /** Koa form: `/api/employee/:id`. */
  readonly path: string;
}

/** A route as the route modules declare it: nothing runs without an {@link Access}. */
export interface Route extends RouteInfo {
  /** The body parser, then the handler (behind the validation of its declared input). */
  readonly run: readonly RouteMiddleware[];
  /**
   * A GET route whose handler writes (the original service's create-by-query): HEAD, a safe
   * method, does not run it (405).
   */
  readonly changesState?: true;
}

/**
 * Declares a route. Its query, path parameters, body (JSON, or an OAuth endpoint's form) and
 * `If-Match` are validated from the declared schemas after the access check and the body parser,
 * before the handler, which gets them typed as its second argument; a route that validates
 * nothing runs its handler directly.
 */
export function route<const S extends RouteSpec>(spec: S, handler: Handler<InputOf<S>>): Route {
  const { method, path, access, parse, ...doc } = spec;
  // A body validated with no parser to read it would refuse every request: a mistake of the table.
  // A client route's form is read by its access check (client authentication), before validation.
  const declaredBody: InputDeclaration['body'] = doc.body;
  const body = isDocumented(declaredBody) ? undefined : declaredBody;
  const formOfClient = body?.type === 'application/x-www-form-urlencoded' && access.kind === 'client';
  if (body !== undefined && parse === undefined && !formOfClient)
    throw new TypeError(
      `route ${method} ${path} validates a ${body.type === 'application/json' ? 'JSON' : 'form'} body it does not parse`,
    );
  const run = validated(doc, path, handler as (ctx: RouteContext, input: unknown) => unknown);
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

/** The client a `client` route authenticated; a route that has none fails closed. */
export function clientOf(ctx: { readonly state: AppState }): ClientView {
  const client = ctx.state.client;
  if (client === undefined) throw new Error('no authenticated client on a client-authenticated route');
  return client;
}

type AppRouter = Router<AppState, RouteParams>;
type Layer = AppRouter['stack'][number];

/** Each route's declaration rides on its guard, so the router's own stack carries it. */
const DECLARED = Symbol('declared');
type Guard = Middleware<AppState> & { readonly [DECLARED]: Declaration & { readonly path: string } };

/**
 * The route's access check with its declaration on it; it records the route and its error format
 * before any check or body parser can fail.
 */
function guardOf(r: Route, guards: Guards): Guard {
  const check = accessCheck(r.access, guards);
  const { errorFormat, path } = r;
  // Not async: koa-compose turns a throw of the check into the request's rejection.
  const guard = function guard(ctx: ParameterizedContext<AppState>, next: () => Promise<unknown>) {
    ctx.state.route = path;
    ctx.state.errorFormat = errorFormat;
    return check(ctx, next);
  };
  return Object.assign(guard, { [DECLARED]: { path, access: r.access, errorFormat, doc: r.doc } });
}

/** What a layer's route declared, read off the layer itself. */
const declarationOf = (layer: Layer | undefined): (Declaration & { readonly path: string }) | undefined =>
  (layer?.stack[0] as Partial<Guard> | undefined)?.[DECLARED];

/**
 * Every route the router answers, from its own stack. Throws for a layer that declared no access,
 * so a route added to the router any other way stops the start-up.
 */
export function routeTable(router: AppRouter): readonly RouteInfo[] {
  return router.stack.flatMap((layer) => {
    const declared = declarationOf(layer);
    if (declared === undefined)
      throw new TypeError(`route ${layer.methods.join(',')} ${String(layer.path)} declares no access`);
    return layer.methods.filter((m): m is Method => m !== 'HEAD').map((method) => ({ ...declared, method }));
  });
}

const escapeRegExp = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * A path the table names as it is (`/api/employee/update`) is answered by its own routes alone,
 * never by a parameterised one that would also take it (`/api/employee/:id`): each parameterised
 * layer's expression is narrowed to leave those paths out, so another method is 405 with theirs.
 */
function leavePlainPathsOut(router: AppRouter): void {
  const plain = router.stack.filter((l) => l.paramNames.length === 0).map((l) => String(l.path));
  for (const layer of router.stack) {
    const taken = plain.filter((p) => layer.paramNames.length > 0 && layer.regexp.test(p));
    if (taken.length === 0 || !layer.regexp.source.startsWith('^')) continue;
    const except = `^(?!(?:${[...new Set(taken)].map(escapeRegExp).join('|')})$)`;
    layer.regexp = new RegExp(except + layer.regexp.source.slice(1), layer.regexp.flags);
  }
}

/** One router for every route, exact matching, each route behind the check of its own declaration. */
export function mountRoutes(routes: readonly Route[], guards: Guards): AppRouter {
  const router = new Router<AppState, RouteParams>({ sensitive: true, strict: true });
  for (const r of routes) {
    if (typeof r.access !== 'object' || r.access === null)
      throw new TypeError(`route ${r.method} ${r.path} declares no access`);
    // A check after the handler runs once the handler has written: a state-changing route is refused it.
    if (r.access.kind === 'role' && (r.method !== 'GET' || r.changesState))
      throw new TypeError(`route ${r.method} ${r.path} changes state: its access must be checked before the handler`);
    router.register(r.path, [r.method], [guardOf(r, guards), ...r.run]);
    // The router answers HEAD with every GET route; not with one whose handler writes.
    const layer = router.stack.at(-1);
    if (r.changesState && layer) layer.methods = layer.methods.filter((m) => m !== 'HEAD');
  }
  leavePlainPathsOut(router);
  routeTable(router);
  return router;
}

/** The methods the router knows; another one is 501. */
const KNOWN_METHODS = new Set(['HEAD', 'OPTIONS', 'GET', 'PUT', 'PATCH', 'POST', 'DELETE']);

/**
 * The answer to a request that ran no route, from the layers whose path matched it: 404, 405 with
 * `Allow`, 200 to OPTIONS, 501 for an unknown method, in the error body its path's routes declare.
 */
function answerUnrouted(ctx: ParameterizedContext<AppState>, matched: readonly Layer[]): void {
  const first = matched[0] && declarationOf(matched[0]);
  if (!first) return;
  ctx.state.route = first.path;
  ctx.state.errorFormat = first.errorFormat;
  const allow = [...new Set(matched.flatMap((l) => l.methods))].join(', ');
  if (ctx.method === 'OPTIONS') {
    ctx.status = 200;
    ctx.body = '';
    ctx.set('Allow', allow);
  } else if (KNOWN_METHODS.has(ctx.method)) {
    ctx.status = 405;
    ctx.set('Allow', allow);
  } else ctx.status = 501;
}

/**
 * The router's routes, the first matching route running alone; a request that runs none gets
 * {@link answerUnrouted}'s answer, and under a secured prefix without a token a 401
 * (`failClosed`). While the server drains, no route runs: the 503 is in the body its path's routes declare.
 */
export function dispatch(
  router: AppRouter,
  guards: Guards,
  draining: () => boolean = () => false,
): Middleware<AppState> {
  const routes = router.routes() as unknown as Middleware<AppState>;
  const refuseWithoutToken = failClosed(routeTable(router), guards);
  const lookup = routeLookup(router);
  return function route(ctx, next) {
    if (draining()) {
      const { path, pathAndMethod } = router.match(ctx.path, ctx.method);
      const declared = declarationOf(pathAndMethod[0] ?? path[0]);
      if (declared) ctx.state.errorFormat = declared.errorFormat;
      ctx.state.route = declared?.path;
      throw shuttingDown();
    }
    const unrouted = async (): Promise<void> => {
      answerUnrouted(ctx, router.match(ctx.path, ctx.method).path);
      await refuseWithoutToken(ctx);
      await next();
    };
    const found = lookup(ctx.path, ctx.method);
    if (found === undefined) return routes(ctx, unrouted);
    const routed = ctx as ParameterizedContext<AppState, RouteParams>;
    routed.params = found.params;
    return found.run(routed, unrouted);
  };
}

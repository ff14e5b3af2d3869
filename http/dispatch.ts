/**
 * The routes of the table (`route-table.ts`) mounted and run. Each route's access is checked by
 * the first middleware of the route that matched: it can never disagree with the route that runs,
 * whatever spelling of the path reached it. Routing is exact (case-sensitive, no trailing slash),
 * and this is the only module that creates a Koa router (lint keeps it so).
 */
import Router from '@koa/router';
import type { Context, Middleware, ParameterizedContext } from 'koa';
import compose, { type ComposedMiddleware } from 'koa-compose';
import type { Principal } from '../src/security/jwt.ts';
import { accessDenied, insufficientScope, notFirstParty } from './middleware/bearer-auth.ts';
import { shuttingDown } from './problems.ts';
import type {
  Access,
  Declaration,
  ErrorFormat,
  Method,
  Route,
  RouteInfo,
  RouteMiddleware,
  RouteParams,
} from './route-table.ts';
import type { AppState, Auth } from './state.ts';

/** How the access checks reach the security parts; built once by the app. */
export interface Guards {
  /**
   * Verifies the request's bearer token and records the decision in `ctx.state.auth`; throws the
   * RFC 6750 400/401 for a missing or bad token. Undefined only when security is switched off.
   */
  authenticate(ctx: Context): Promise<Principal | undefined>;
  /**
   * The same decision when it is made at once (security off, or a token the token cache keeps),
   * with no promise; undefined when only `authenticate` can decide.
   */
  authenticateNow?(ctx: Context): Auth | undefined;
  /** Authenticates the OAuth client of a form request into `ctx.state.client` (401 otherwise), then calls next. */
  readonly client: Middleware<AppState>;
  /** The same, refusing a public client (401 `invalid_client`): only a client with a secret passes. */
  readonly confidentialClient: Middleware<AppState>;
  readonly realm: string;
  firstParty(clientId: string): boolean; // a token's client_id: first-party, by configuration alone (unknown: no)
}

/** Each route's declaration rides on its guard, so the router's own stack carries it. */
const DECLARED = Symbol('declared');
type Guard = Middleware<AppState> & { readonly [DECLARED]: Declaration };

/**
 * The guard with the route's declaration on it; it records the route's error format before any
 * check or body parser can fail.
 */
function guardOf(r: Route, guards: Guards): Guard {
  const check = accessCheck(r.access, guards);
  const { errorFormat } = r;
  // Not async: koa-compose turns a throw of the check into the request's rejection.
  const guard = function guard(ctx: ParameterizedContext<AppState>, next: () => Promise<unknown>) {
    ctx.state.errorFormat = errorFormat;
    return check(ctx, next);
  };
  return Object.assign(guard, { [DECLARED]: { access: r.access, errorFormat, doc: r.doc } });
}

function accessCheck(access: Access, guards: Guards): Middleware<AppState> {
  switch (access.kind) {
    case 'public':
      return function publicRoute(_ctx, next) {
        return next();
      };
    case 'client':
      return access.confidential ? guards.confidentialClient : guards.client;
    case 'bearer': {
      const check = (principal: Principal | undefined): void => {
        if (principal && access.scope !== undefined && !principal.scope.includes(access.scope))
          throw insufficientScope(guards.realm, access.scope);
        if (access.role !== undefined && !principal?.authorities.includes(access.role)) throw accessDenied();
        if (access.holder && !principal) throw accessDenied();
        if (access.firstParty && principal && !guards.firstParty(principal.clientId)) throw notFirstParty(guards.realm);
      };
      // No promise of its own while the token is known at once (koa-compose turns a throw here
      // into the request's rejection, as it does an async function's).
      return function requireToken(ctx, next) {
        const known = guards.authenticateNow?.(ctx);
        if (known === undefined)
          return guards.authenticate(ctx).then((p) => {
            check(p);
            return next();
          });
        check(known.enabled ? known.principal : undefined);
        return next();
      };
    }
    case 'role':
      return async function requireRoleAfterHandler(ctx, next) {
        const principal = await guards.authenticate(ctx);
        await next();
        if (principal && !principal.authorities.includes(access.role)) {
          ctx.body = null;
          ctx.remove('Content-Type');
          throw accessDenied();
        }
      };
    default:
      throw new TypeError(`unknown access ${JSON.stringify(access satisfies never)}`);
  }
}

/** What a layer's route declared, read off the layer itself. */
const declarationOf = (layer: { readonly stack: readonly unknown[] }): Declaration | undefined => {
  const first = layer.stack[0] as Partial<Guard> | undefined;
  return first?.[DECLARED];
};

/**
 * Every route the router answers, from its own stack. Throws for a layer that declared no access,
 * so a route added to the router any other way stops the start-up.
 */
export function routeTable(router: Router<AppState, RouteParams>): readonly RouteInfo[] {
  return router.stack.flatMap((layer) => {
    const declared = declarationOf(layer);
    if (declared === undefined)
      throw new TypeError(`route ${layer.methods.join(',')} ${String(layer.path)} declares no access`);
    return layer.methods
      .filter((m): m is Method => m !== 'HEAD')
      .map((method) => ({ method, path: String(layer.path), ...declared }));
  });
}

/** One router for every route, exact matching, each route behind the check of its own declaration. */
export function mountRoutes(routes: readonly Route[], guards: Guards): Router<AppState, RouteParams> {
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
  routeTable(router);
  return router;
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

type Layer = Router<AppState, RouteParams>['stack'][number];
interface Compiled {
  readonly layer: Layer;
  readonly path: string;
  readonly methods: ReadonlySet<string>;
  readonly errorFormat: ErrorFormat;
  readonly run: ComposedMiddleware<ParameterizedContext<AppState, RouteParams>>;
  /**
   * The path's literal start, before its first parameter or pattern: every path its expression
   * matches begins with it (matching is case-sensitive), so a path that does not is passed over
   * without running the expression.
   */
  readonly prefix: string;
}

/** The route a request runs, and its path's parameters by name. */
interface Chosen {
  readonly route: Compiled;
  readonly params: Record<string, string>;
}

const literalPrefix = (path: string): string => {
  const end = path.search(/[:*{}()\\[\]?+]/);
  return end === -1 ? path : path.slice(0, end);
};

/** The methods @koa/router's allowedMethods knows; another one is 501, as there. */
const KNOWN_METHODS = new Set(['HEAD', 'OPTIONS', 'GET', 'PUT', 'PATCH', 'POST', 'DELETE']);

/**
 * The router's routes, run the router's way (the same layers, paths matched by their own
 * expressions, in registration order, the first matching route running alone), with each route's
 * middleware composed once at start-up rather than on every request, and a map from each plain
 * path to its routes, which alone answer it. A request that runs no route gets what allowedMethods gives (404, 405 with
 * `Allow`, 200 to OPTIONS, 501), and under a prefix whose routes need a token it is refused
 * without one (401, as Spring does): probing a secured prefix tells nothing without a token. That
 * refusal only ever refuses: what a request may run is decided by its route alone.
 */
export function dispatch(
  router: Router<AppState, RouteParams>,
  guards: Guards,
  draining: () => boolean = () => false,
): Middleware<AppState> {
  // A layer's stack holds what mountRoutes registered: RouteMiddleware (the router's own context type is wider).
  const compiled: Compiled[] = router.stack.map((layer) => ({
    layer,
    path: String(layer.path),
    methods: new Set(layer.methods),
    errorFormat: declarationOf(layer)?.errorFormat ?? 'problem',
    run: compose(layer.stack as unknown as RouteMiddleware[]),
    prefix: literalPrefix(String(layer.path)),
  }));
  // A path the table names as it is (`/api/employee/update`) is answered by its own routes alone,
  // never by a parameterised one that would also take it (`/api/employee/:id`): a method the table
  // does not declare for it is 405 with the methods it does. Found once at start-up.
  const plain = new Map<string, readonly Compiled[]>();
  for (const c of compiled)
    if (c.layer.paramNames.length === 0)
      plain.set(
        c.path,
        compiled.filter((other) => other.path === c.path),
      );
  const secured = new Set(
    routeTable(router)
      .filter((r) => r.access.kind === 'bearer' || r.access.kind === 'role')
      .map((r) => firstSegment(r.path)),
  );
  const matching = (path: string): readonly Compiled[] =>
    plain.get(path) ?? compiled.filter((c) => c.layer.match(path));
  /**
   * The first route of the method whose path matches, testing only the method's routes, with the
   * path's parameters: the route's expression runs once, its captures decoded as the router does.
   */
  const byMethod = new Map<string, readonly Compiled[]>();
  for (const c of compiled) for (const method of c.methods) byMethod.set(method, [...(byMethod.get(method) ?? []), c]);
  const chosenFor = (path: string, method: string): Chosen | undefined => {
    const direct = plain.get(path);
    if (direct) {
      const route = direct.find((c) => c.methods.has(method));
      return route && { route, params: {} };
    }
    for (const c of byMethod.get(method) ?? []) {
      if (!path.startsWith(c.prefix)) continue;
      const captures = c.layer.regexp.exec(path);
      if (captures) return { route: c, params: c.layer.params(path, captures.slice(1), {}) };
    }
    return undefined;
  };
  /**
   * HEAD runs the route GET would run, when that route takes HEAD: never a handler that writes
   * (`GET /api/employee/create`).
   */
  const routeFor = (path: string, method: string): Chosen | undefined => {
    if (method !== 'HEAD') return chosenFor(path, method);
    const get = chosenFor(path, 'GET');
    return get?.route.methods.has('HEAD') ? get : undefined;
  };

  const unrouted = async (ctx: ParameterizedContext<AppState>, candidates: readonly Compiled[]): Promise<void> => {
    const first = candidates[0];
    if (first) {
      // A known path asked with another method: its error is in the body its routes declare.
      ctx.state.route = first.path;
      ctx.state.errorFormat = first.errorFormat;
      const allow = [...new Set(candidates.flatMap((c) => [...c.methods]))]
        .filter((m) => m !== 'HEAD' || routeFor(ctx.path, 'HEAD'))
        .join(', ');
      if (ctx.method === 'OPTIONS') {
        ctx.status = 200;
        ctx.body = '';
        ctx.set('Allow', allow);
      } else {
        ctx.status = KNOWN_METHODS.has(ctx.method) ? 405 : 501;
        if (ctx.status === 405) ctx.set('Allow', allow);
      }
    }
    // OPTIONS too: its 200 or 404 would tell which routes exist. A CORS preflight from an allowed
    // origin never gets here (answered by the CORS middleware before this).
    if (!secured.has(firstSegment(ctx.path))) return;
    const allow = ctx.response.get('Allow');
    ctx.remove('Allow'); // a 401 tells nothing about the methods
    await guards.authenticate(ctx);
    if (allow) ctx.set('Allow', allow);
  };

  // Not async: the route's composed middleware is the request's promise (a throw here becomes
  // its rejection in koa-compose, as in an async function).
  return function route(ctx, next) {
    const path = ctx.path;
    const chosen = routeFor(path, ctx.method);
    // While the server drains, no route runs: the 503 is in the body the path's routes declare.
    if (draining()) {
      const declared = chosen?.route ?? matching(path)[0];
      if (declared) ctx.state.errorFormat = declared.errorFormat;
      ctx.state.route = declared?.path;
      throw shuttingDown();
    }
    if (!chosen) return unrouted(ctx, matching(path)).then(() => next());
    const routed = ctx as ParameterizedContext<AppState, RouteParams>;
    routed.params = chosen.params;
    ctx.state.route = chosen.route.path;
    return chosen.route.run(routed);
  };
}

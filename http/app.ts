import Koa from 'koa';
import Router from '@koa/router';
import type * as Token from '../actors/token/protocol.ts';
import type * as Activity from '../actors/activity/protocol.ts';
import type * as User from '../actors/user/protocol.ts';
import type * as Employee from '../actors/employee/protocol.ts';
import type { Config } from '../src/config.ts';
import type { Logger } from '../src/logger.ts';
import type { Ref } from '../src/messaging/nact.ts';
import type { TokenVerifier } from '../src/security/jwt.ts';
import type { SigningKey } from '../src/security/keys.ts';
import { createLoginThrottle } from '../src/security/login-throttle.ts';
import type { Metrics } from '../src/metrics.ts';
import { bearerAuth } from './middleware/bearer-auth.ts';
import { corsFor } from './middleware/cors.ts';
import { requestMetrics } from './middleware/metrics.ts';
import { errorHandler } from './middleware/error-handler.ts';
import { requestId } from './middleware/request-id.ts';
import { requestLog } from './middleware/request-log.ts';
import { activityRoutes } from './routes/activity.ts';
import { appRoutes } from './routes/app.ts';
import { openApiFor } from './openapi/openapi.ts';
import { discoveryRoutes } from './routes/discovery.ts';
import { docsRoutes } from './routes/docs.ts';
import { employeeRoutes } from './routes/employee.ts';
import { oauthRoutes } from './routes/oauth.ts';
import { oauthTokenRoutes } from './routes/oauth-tokens.ts';
import { opsRoutes } from './routes/ops.ts';
import { userRoutes } from './routes/user.ts';
import { matchedRoute, type AppState } from './state.ts';

export interface AppRefs {
  readonly token: Ref<Token.Command>;
  readonly users: Ref<User.Command>;
  readonly activity: Ref<Activity.RouterCommand>;
  /** Present when the employee service is on. */
  readonly employee?: Ref<Employee.Command> | undefined;
}

export interface AppDeps {
  readonly config: Config;
  readonly refs: AppRefs;
  readonly verifyToken: TokenVerifier;
  readonly key: SigningKey;
  readonly logger: Logger;
  readonly ready: () => Promise<void>;
  readonly metrics: Metrics;
}

const under = (prefix: string) => (path: string): boolean => path === prefix || path.startsWith(`${prefix}/`);

export interface RouteInfo {
  readonly method: string;
  readonly path: string;
}

const mounted = new WeakMap<Koa<AppState>, RouteInfo[]>();

/** Every (method, path) the app's routers answer, HEAD aside: the OpenAPI document must list the same. */
export const routesOf = (app: Koa<AppState>): readonly RouteInfo[] => mounted.get(app) ?? [];

/**
 * All routers under one root router: one route match per request instead of one per router, and
 * one 405/OPTIONS answer from the union of their methods. Mount it with {@link mountRoot}.
 */
function rootRouter(app: Koa<AppState>, routers: readonly Router<AppState>[]): Router<AppState> {
  const root = new Router<AppState>();
  const routes: RouteInfo[] = [];
  for (const router of routers) {
    for (const layer of router.stack) {
      for (const method of layer.methods) if (method !== 'HEAD') routes.push({ method, path: String(layer.path) });
    }
    root.use(router.routes());
  }
  mounted.set(app, routes);
  return root;
}

function mountRoot(app: Koa<AppState>, root: Router<AppState>): void {
  app.use(root.routes());
  app.use(root.allowedMethods());
}

/**
 * Names the route template of a request that never reached its route (a 401 from the guard, a
 * 405), so the request log and the metrics label it by its route rather than as unmatched.
 */
function routeOfUnrouted(root: Router<AppState>): Koa.Middleware<AppState> {
  return async function nameRoute(ctx, next) {
    try {
      await next();
    } finally {
      if (matchedRoute(ctx) === undefined) {
        const layer = root.match(ctx.path, ctx.method).path.find((l) => l.methods.length > 0);
        if (layer) ctx.state.route = String(layer.path);
      }
    }
  };
}

function securedRouters(deps: AppDeps): Router<AppState>[] {
  const { config, refs } = deps;
  const jwt = config.security.jwt;
  const askTimeoutMs = config.actors.askTimeoutMs;
  const oauth = { token: refs.token, realm: config.security.realm, askTimeoutMs, maxBodyBytes: config.server.maxBodyBytes, throttle: createLoginThrottle(config.security.loginThrottle) };
  return [
    oauthRoutes(oauth),
    oauthTokenRoutes({ ...oauth, issuer: jwt.issuer, audience: jwt.resourceId }),
    discoveryRoutes({ key: deps.key, issuer: jwt.issuer, grantTypes: jwt.grantTypes, scopes: [jwt.scopeRead, jwt.scopeWrite] }),
    appRoutes({ token: refs.token, askTimeoutMs, includePasswordHash: config.app.listAllIncludePasswordHash }),
  ];
}

function apiOptions(config: Config) {
  const { realm, jwt } = config.security;
  return { askTimeoutMs: config.actors.askTimeoutMs, maxBodyBytes: config.server.maxBodyBytes, realm, scopeRead: jwt.scopeRead, scopeWrite: jwt.scopeWrite };
}

function serviceRouters(deps: AppDeps): Router<AppState>[] {
  const { config, refs } = deps;
  const routers = [opsRoutes({ ready: deps.ready, metrics: deps.metrics.registry })];
  if (config.services.has('secured')) routers.push(...securedRouters(deps));
  if (config.services.has('userdata')) {
    routers.push(userRoutes({ ...apiOptions(config), users: refs.users }), activityRoutes({ ...apiOptions(config), users: refs.users, activity: refs.activity }));
  }
  if (config.services.has('employee') && refs.employee) routers.push(employeeRoutes({ ...apiOptions(config), employee: refs.employee }));
  routers.push(docsRoutes({ document: openApiFor(config) }));
  return routers;
}

/**
 * The middleware order: request id → request log → metrics → error handler → CORS → resource-server
 * guard → routers. The guard runs before routing, so an unknown path under /app is 401 without a
 * token, as in Spring.
 */
export function createApp(deps: AppDeps): Koa<AppState> {
  const { config } = deps;
  // Behind N proxies, the client is the N-th address from the end of X-Forwarded-For (entries
  // further left are the client's own claims); with none, the socket's address.
  const proxies = config.server.trustedProxies;
  const app = new Koa<AppState>({ proxy: proxies > 0, maxIpsCount: proxies });
  app.silent = true;
  const root = rootRouter(app, serviceRouters(deps));
  app.use(requestId());
  app.use(requestLog(deps.logger));
  app.use(requestMetrics(deps.metrics));
  app.use(errorHandler(deps.logger));
  app.use(corsFor(config.server.corsAllowedOrigins));
  app.use(routeOfUnrouted(root));
  const guard = bearerAuth({ enabled: config.security.enabled, realm: config.security.realm, verify: deps.verifyToken });
  const isApp = under('/app');
  const isApi = under('/api');
  const protectApi = config.security.protectApi;
  app.use(async function guardResources(ctx, next) {
    if (isApp(ctx.path) || (protectApi && isApi(ctx.path))) return guard(ctx, next);
    return next();
  });
  mountRoot(app, root);
  return app;
}

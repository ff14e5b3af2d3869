import Koa, { type Middleware } from 'koa';
import type * as Accounts from '../actors/accounts/protocol.ts';
import type * as Token from '../actors/token/protocol.ts';
import type * as Activity from '../actors/activity/protocol.ts';
import type * as User from '../actors/user/protocol.ts';
import type * as Employee from '../actors/employee/protocol.ts';
import type { Config } from '../src/config.ts';
import type { Logger } from '../src/logger.ts';
import type { Ref } from '../src/messaging/nact.ts';
import type { KeyRing } from '../src/security/key-ring.ts';
import type { Client, ClientAuthenticator } from '../src/security/clients.ts';
import type { LoginThrottle } from '../src/security/login-throttle.ts';
import { clientAuthentication, type OAuthRouteDeps } from './oauth/client-authentication.ts';
import type { Metrics } from '../src/telemetry/metrics.ts';
import { bearerAuthenticator, type BearerVerifier } from './middleware/bearer-auth.ts';
import { corsFor } from './middleware/cors.ts';
import { requestFrame } from './middleware/frame.ts';
import { activityRoutes } from './routes/activity.ts';
import { resourceRoutes } from './routes/resources.ts';
import { accountRoutes } from './routes/accounts.ts';
import { accountLoginRoutes } from './routes/account-logins.ts';
import { consentRoutes } from './routes/consents.ts';
import { openApiFor } from './openapi/openapi.ts';
import { discoveryRoutes } from './oauth/discovery.ts';
import { docsRoutes } from './routes/docs.ts';
import { homeRoutes } from './routes/home.ts';
import { employeeRoutes } from './routes/employee.ts';
import { oauthAuthorizeRoutes } from './oauth/authorize.ts';
import { oauthAccountRoutes } from './oauth/account.ts';
import { logoutRoutes } from './oauth/logout.ts';
import { signInAssetRoutes } from './oauth/pages/assets.ts';
import type { SignInSite } from './oauth/pages/sign-in-site.ts';
import { oauthGrantRoutes } from './oauth/token.ts';
import { oauthRevokeIntrospectRoutes } from './oauth/revoke-introspect.ts';
import { userInfoRoutes } from './oauth/userinfo.ts';
import { opsRoutes } from './routes/ops.ts';
import { userRoutes } from './routes/user.ts';
import type { Guards } from './guards.ts';
import { dispatch, mountRoutes, routeTable, type Route, type RouteInfo } from './route-table.ts';
import { bearer, PUBLIC, type Access } from './guards.ts';
import type { AppState } from './state.ts';

export interface AppRefs {
  readonly token: Ref<Token.Command>;
  readonly accounts: Ref<Accounts.Command>;
  readonly users: Ref<User.Command>;
  readonly activity: Ref<Activity.RouterCommand>;
  /** Present when the employee service is on. */
  readonly employees?: Ref<Employee.Command> | undefined;
}

export interface AppDeps {
  readonly config: Config;
  readonly refs: AppRefs;
  readonly verifyToken: BearerVerifier;
  /** The access-token keys: JWKS and token_key publish their public halves. */
  readonly keys: KeyRing;
  /** The id_token keys: the JWKS publishes them too. */
  readonly idTokenKeys: KeyRing;
  readonly logger: Logger;
  readonly ready: () => Promise<void>;
  readonly metrics: Metrics;
  /** Counts failed logins and client authentications (429 past the limits). */
  readonly throttle: LoginThrottle;
  /** The registered clients' credential check, made by the guard of every client route. */
  readonly authenticateClient: ClientAuthenticator;
  /** The registered clients, as the composition root reads them from the configuration. */
  readonly clients: readonly Client[];
  /** The ids of the service's own applications, whose tokens manage an account's security. */
  readonly firstParty: ReadonlySet<string>;
  /** Whether the server drains before it stops: every request is then 503 (`src/composition/drain.ts`). */
  readonly draining?: (() => boolean) | undefined;
  /** The sign-in pages, their stylesheet and logo, as `security.sign-in.*` make them (`oauth/pages/`). */
  readonly signIn: SignInSite;
}

export type { RouteInfo } from './route-table.ts';

/** How long resource servers may cache the JWKS at most, seconds; never longer than a new key is published ahead. */
const JWKS_MAX_AGE = 300;

const mounted = new WeakMap<Koa<AppState>, readonly RouteInfo[]>();

/** Every (method, path, access) the app's router answers, HEAD aside, read off the router's own stack. */
export const routesOf = (app: Koa<AppState>): readonly RouteInfo[] => mounted.get(app) ?? [];

function securedRoutes(deps: AppDeps, oauth: OAuthRouteDeps): Route[] {
  const { config, refs } = deps;
  const jwt = config.security.jwt;
  const accountDeps = {
    accounts: refs.accounts,
    askTimeoutMs: config.actors.askTimeoutMs,
    maxBodyBytes: config.server.maxBodyBytes,
    scopeRead: jwt.scopeRead,
    scopeWrite: jwt.scopeWrite,
    logger: deps.logger,
  };
  const pageDeps = {
    ...oauth,
    issuer: jwt.issuer,
    keys: deps.keys,
    idTokenKeys: deps.idTokenKeys,
    pages: deps.signIn.pages,
  };
  return [
    ...oauthGrantRoutes(oauth),
    ...oauthAuthorizeRoutes(pageDeps),
    ...logoutRoutes(pageDeps),
    ...oauthAccountRoutes(pageDeps),
    ...signInAssetRoutes(deps.signIn),
    ...oauthRevokeIntrospectRoutes({ ...oauth, issuer: jwt.issuer, audience: jwt.resourceIds }),
    ...discoveryRoutes({
      keys: deps.keys,
      idTokenKeys: deps.idTokenKeys,
      jwksMaxAge: Math.min(JWKS_MAX_AGE, config.security.keys.publishAheadSeconds),
      issuer: jwt.issuer,
      clients: oauth.clients,
    }),
    ...userInfoRoutes({
      accounts: refs.accounts,
      askTimeoutMs: config.actors.askTimeoutMs,
      realm: config.security.securityRealm,
    }),
    ...resourceRoutes({
      accounts: refs.accounts,
      askTimeoutMs: config.actors.askTimeoutMs,
      includePasswordHash: config.app.listAll.includePasswordHash,
    }),
    ...accountRoutes(accountDeps),
    ...accountLoginRoutes(accountDeps),
    ...consentRoutes({ ...accountDeps, token: refs.token }),
  ];
}

/** Who may read and write under /api: a token with the read or write scope, or anyone when `security.protect-api=false`. */
function apiOptions(config: Config): { askTimeoutMs: number; maxBodyBytes: number; read: Access; write: Access } {
  const { jwt, protectApi } = config.security;
  return {
    askTimeoutMs: config.actors.askTimeoutMs,
    maxBodyBytes: config.server.maxBodyBytes,
    read: protectApi ? bearer(jwt.scopeRead) : PUBLIC,
    write: protectApi ? bearer(jwt.scopeWrite) : PUBLIC,
  };
}

function serviceRoutes(deps: AppDeps, oauth: OAuthRouteDeps): Route[] {
  const { config, refs } = deps;
  // With a management port, operations are served there alone (createManagementApp).
  const routes = config.management.port === undefined ? opsRoutes(opsDeps(deps)) : [];
  if (config.services.has('secured')) routes.push(...securedRoutes(deps, oauth));
  if (config.services.has('userdata')) {
    routes.push(
      ...userRoutes({ ...apiOptions(config), users: refs.users }),
      ...activityRoutes({ ...apiOptions(config), users: refs.users, activity: refs.activity }),
    );
  }
  if (config.services.has('employee') && refs.employees)
    routes.push(...employeeRoutes({ ...apiOptions(config), employees: refs.employees }));
  return routes;
}

const opsDeps = (deps: AppDeps) => ({ ready: deps.ready, metrics: deps.metrics.text });

/**
 * The client routes issue, revoke and describe tokens: once the client is authenticated, none of
 * them runs while a lineage of the signing-key set cannot be used (503 with Retry-After, as its
 * store being out of reach is), so that every token operation answers alike and nothing is spent
 * first (an authorization code redeemed, a refresh token described as active).
 */
function withUsableKeys(authenticate: Middleware<AppState>, rings: readonly KeyRing[]): Middleware<AppState> {
  return (ctx, next) =>
    authenticate(ctx, async () => {
      for (const ring of rings) await ring.check();
      await next();
    });
}

function guardsFor(deps: AppDeps, oauth: OAuthRouteDeps): Guards {
  const { config, firstParty } = deps;
  return {
    ...bearerAuthenticator({
      enabled: config.security.enabled,
      realm: config.security.securityRealm,
      verify: deps.verifyToken,
    }),
    client: withUsableKeys(clientAuthentication(oauth), [deps.keys, deps.idTokenKeys]),
    confidentialClient: withUsableKeys(clientAuthentication(oauth, { confidential: true }), [
      deps.keys,
      deps.idTokenKeys,
    ]),
    realm: config.security.securityRealm,
    firstParty: (clientId) => firstParty.has(clientId),
  };
}

function oauthDeps(deps: AppDeps): OAuthRouteDeps {
  const { config } = deps;
  return {
    token: deps.refs.token,
    realm: config.security.securityRealm,
    askTimeoutMs: config.actors.askTimeoutMs,
    maxBodyBytes: config.server.maxBodyBytes,
    throttle: deps.throttle,
    authenticateClient: deps.authenticateClient,
    clients: deps.clients,
    logger: deps.logger,
  };
}

/**
 * The middleware order: the request frame (`middleware/frame.ts`: request id, the request's log
 * line and metrics, and the error handler, in one middleware) → CORS when origins are configured →
 * one router, whose every route runs the check of its own access declaration first
 * (`http/route-table.ts`, `http/guards.ts`). A request that runs no route under a secured prefix
 * is 401 without a token, as in Spring.
 */
export function createApp(deps: AppDeps): Koa<AppState> {
  const { config } = deps;
  // Behind N proxies, the client is the N-th address from the end of X-Forwarded-For (entries
  // further left are the client's own claims); with none, the socket's address.
  const proxies = config.server.trustedProxies;
  const app = new Koa<AppState>({ proxy: proxies > 0, maxIpsCount: proxies });
  app.silent = true;
  const oauth = oauthDeps(deps);
  const guards = guardsFor(deps, oauth);
  let routes: readonly RouteInfo[] = [];
  let served: ReadonlySet<string> | undefined;
  const root = mountRoutes(
    [
      ...homeRoutes({ served: () => (served ??= new Set(routes.map((r) => r.path))), pages: deps.signIn.pages }),
      ...serviceRoutes(deps, oauth),
      ...docsRoutes({
        document: () => openApiFor(config, routes),
        oauth: {
          clientId: config.security.jwt.clientId,
          scopes: [config.security.jwt.scopeRead, config.security.jwt.scopeWrite],
        },
      }),
    ],
    guards,
  );
  routes = routeTable(root);
  mounted.set(app, routes);
  app.use(requestFrame(deps.logger, deps.metrics));
  // CORS headers go to allowed origins only: with none configured there is nothing to do.
  if (config.server.cors.allowedOrigins.length > 0) app.use(corsFor(config.server.cors.allowedOrigins));
  app.use(dispatch(root, guards, deps.draining));
  return app;
}

/**
 * The app of `management.port`: `/health`, `/ready` and `/metrics` alone, with the same request
 * frame (request id, log line, metrics, error rendering), as Spring Boot's management port.
 */
export function createManagementApp(deps: AppDeps): Koa<AppState> {
  const app = new Koa<AppState>();
  app.silent = true;
  const guards = guardsFor(deps, oauthDeps(deps));
  const router = mountRoutes(opsRoutes(opsDeps(deps)), guards);
  mounted.set(app, routeTable(router));
  app.use(requestFrame(deps.logger, deps.metrics));
  app.use(dispatch(router, guards, deps.draining));
  return app;
}

/**
 * Who may run a route, and the checks that decide it before any handler: each route's guard runs
 * first in its own middleware, so it can never disagree with the route that runs. A request that
 * runs no route under a prefix whose routes need a token is refused without one (fail closed).
 */
import type { Context, Middleware, ParameterizedContext } from 'koa';
import type { Principal } from '../src/security/jwt.ts';
import { accessDenied, insufficientScope, notFirstParty } from './middleware/bearer-auth.ts';
import type { AppState, Auth } from './state.ts';

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

/** Whether a route's access needs a bearer token: its path's first segment is then a secured prefix. */
export const needsToken = (access: Access): boolean => access.kind === 'bearer' || access.kind === 'role';

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

/** The check of one route's access, run before its body parser and handler. */
export function accessCheck(access: Access, guards: Guards): Middleware<AppState> {
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
 * The refusal of a request that ran no route (404, or 405 with `Allow`, or 200 to OPTIONS) under a
 * prefix whose routes need a token: without one it is 401, as in Spring, so probing a secured
 * prefix tells nothing, not even the methods. It only ever refuses: what a request may run is
 * decided by its route alone. A CORS preflight from an allowed origin never gets here.
 */
export function failClosed(
  routes: readonly { readonly path: string; readonly access: Access }[],
  guards: Guards,
): (ctx: ParameterizedContext<AppState>) => Promise<void> {
  const secured = new Set(routes.filter((r) => needsToken(r.access)).map((r) => firstSegment(r.path)));
  return async function refuseWithoutToken(ctx) {
    if (!secured.has(firstSegment(ctx.path))) return;
    const allow = ctx.response.get('Allow');
    ctx.remove('Allow'); // a 401 tells nothing about the methods
    await guards.authenticate(ctx);
    if (allow) ctx.set('Allow', allow);
  };
}

import type { ClientView } from '../actors/token/protocol.ts';
import type { Principal } from '../src/security/jwt.ts';

/** What the authentication middleware decided for a request. */
export type Auth =
  | { readonly enabled: false }
  | { readonly enabled: true; readonly principal: Principal };

/** Koa's `ctx.state` in this app. */
export interface AppState {
  requestId: string;
  auth?: Auth;
  /** The OAuth client a `client` route authenticated. */
  client?: ClientView;
  /** Set when an actor did not answer in time (the request became a 503). */
  askTimedOut?: boolean;
  /** The route template of a request answered before routing (a 401 from the guard, a 405). */
  route?: string;
}

/**
 * The template of the request's route (`/api/employee/:id`): the one that answered, or the one its
 * path names when it was answered before routing; undefined for a path no route has.
 */
export function matchedRoute(ctx: { readonly state: AppState }): string | undefined {
  const route = (ctx as { _matchedRoute?: string | RegExp })._matchedRoute;
  return route === undefined ? ctx.state.route : String(route);
}

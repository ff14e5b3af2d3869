import type { Principal } from '../src/security/jwt.ts';

/** What the authentication middleware decided for a request. */
export type Auth =
  | { readonly enabled: false }
  | { readonly enabled: true; readonly principal: Principal };

/** Koa's `ctx.state` in this app. */
export interface AppState {
  requestId: string;
  auth?: Auth;
  /** Set when an actor did not answer in time (the request became a 503). */
  askTimedOut?: boolean;
}

/** The template of the route that answered (`/api/employee/:id`), or undefined when none did. */
export function matchedRoute(ctx: object): string | undefined {
  const route = (ctx as { _matchedRoute?: string | RegExp })._matchedRoute;
  return route === undefined ? undefined : String(route);
}

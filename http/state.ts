import type { ClientView } from '../actors/token/protocol.ts';
import type { Principal } from '../src/security/jwt.ts';
import type { ErrorFormat } from './route-table.ts';

/** What the authentication middleware decided for a request. */
export type Auth = { readonly enabled: false } | { readonly enabled: true; readonly principal: Principal };

/** Koa's `ctx.state` in this app. */
export interface AppState {
  requestId: string;
  auth?: Auth;
  /** The OAuth client a `client` route authenticated. */
  client?: ClientView;
  /** Set when an actor did not answer in time (the request became a 503). */
  askTimedOut?: boolean;
  /**
   * The template of the request's route (`/api/employee/:id`): the one that ran, or for a 405 the
   * one its path names; unset for a path no route has.
   */
  route?: string;
  /**
   * The error body the request's route declared (for a 405, the routes of its path); unset, and so
   * problem+json, for a path no route has.
   */
  errorFormat?: ErrorFormat;
}

import type { ClientView } from '../actors/token/protocol.ts';
import type { Principal } from '../src/security/jwt.ts';
import type { Middleware } from 'koa';
import type { ErrorFormat } from './problems.ts';

/** What the authentication middleware decided for a request. */
export type Auth = { readonly enabled: false } | { readonly enabled: true; readonly principal: Principal };

/** Koa's `ctx.state` in this app. */
export interface AppState {
  /**
   * The id the request is recorded under (its log line, security events): made by this server, or
   * behind `server.trusted-proxies` the proxy's `X-Request-Id`.
   */
  requestId: string;
  /**
   * The `X-Request-Id` a caller sent where no trusted proxy stands in front: echoed in the answer
   * for the caller to correlate, and logged apart, never as the request's id.
   */
  callerRequestId?: string;
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

/** What a route's middleware sees besides Koa's context: the path parameters. */
export interface RouteParams {
  params: Record<string, string>;
}
export type RouteMiddleware = Middleware<AppState, RouteParams>;
export type RouteContext = Parameters<RouteMiddleware>[0];

/** The id the answer carries (`X-Request-Id`, a problem's `requestId`): the caller's own when it sent a sane one. */
export const answeredRequestId = (state: Pick<AppState, 'requestId' | 'callerRequestId'>): string =>
  state.callerRequestId ?? state.requestId;

/**
 * Whether the headers a proxy sets (`X-Forwarded-*`, `X-Request-Id`, `traceparent`) are taken as
 * the proxy's: only behind `server.trusted-proxies`. Otherwise they are whatever the caller chose.
 */
export const proxyHeadersTrusted = (ctx: { readonly app: { readonly proxy: boolean } }): boolean => ctx.app.proxy;

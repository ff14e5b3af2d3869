import { randomUUID } from 'node:crypto';
import type { Context, Middleware } from 'koa';
import type { Logger } from '../../src/logger.ts';
import type { Metrics } from '../../src/telemetry/metrics.ts';
import { answeredRequestId, proxyHeadersTrusted, type AppState } from '../state.ts';
import { renderError, unroutedError } from './errors.ts';
import { serverSpan } from './server-span.ts';
import { tracingEnabled } from '../../src/telemetry/tracing.ts';

const SAFE_ID = /^[A-Za-z0-9._~:+=/-]{1,128}$/;

/**
 * The metric series of each method, route and status, resolved once (a bounded set: routes ×
 * statuses), so that counting a request costs two map lookups and two increments.
 */
function childrenOf(metrics: Metrics) {
  interface RouteSeries {
    readonly duration: (seconds: number) => void;
    readonly byStatus: Map<number, () => void>;
    timedOut?: () => void;
  }
  const routes = new Map<string, Map<string, RouteSeries>>();
  const seriesOf = (method: string, route: string): RouteSeries => {
    let byRoute = routes.get(method);
    if (!byRoute) routes.set(method, (byRoute = new Map()));
    let series = byRoute.get(route);
    if (!series)
      byRoute.set(route, (series = { duration: metrics.httpDuration.series({ method, route }), byStatus: new Map() }));
    return series;
  };
  return {
    record(method: string, route: string, status: number, seconds: number, askTimedOut: boolean): void {
      const series = seriesOf(method, route);
      series.duration(seconds);
      let count = series.byStatus.get(status);
      if (!count)
        series.byStatus.set(status, (count = metrics.httpRequests.series({ method, route, status: String(status) })));
      count();
      if (askTimedOut) (series.timedOut ??= metrics.askTimeouts.series({ route }))();
    },
  };
}

/**
 * Every answer: no content sniffing (a JSON body is never taken for HTML). An answer to a request
 * that carried credentials or passed a token check is the caller's own: no cache may keep it
 * (`no-store`), unless its route said otherwise.
 */
function protectAnswer(ctx: Context, state: AppState): void {
  // Straight to Node's response: Koa's `set` builds four arrays per header to accept the forms
  // these constant strings never take.
  const res = ctx.res;
  if (res.headersSent) return;
  res.setHeader('X-Content-Type-Options', 'nosniff');
  if ((state.auth !== undefined || (ctx.req.headers.authorization ?? '') !== '') && !res.hasHeader('Cache-Control'))
    res.setHeader('Cache-Control', 'no-store');
}

/**
 * The one middleware every request passes first, doing in one frame what would otherwise be five
 * (each an async function around the rest): every response carries `X-Request-Id` (the caller's
 * when it is 1–128 safe characters, else a new one), but the request is recorded under an id of
 * the server's own, or behind `server.trusted-proxies` the proxy's: never under one an
 * unauthenticated caller chose (that one is logged apart, as `callerRequestId`); every error is
 * rendered here (Koa's advice: one error handler, first in the chain), and a request no route
 * answered gets its 404/405 problem; while tracing is on, the request is a SERVER span
 * (`server-span.ts`); every request is counted by route template (never the raw path: unbounded
 * labels) and status, and logged in one line (request id, method, route, status, duration; never
 * the URL, as a query string could carry credentials).
 */
export function requestFrame(logger: Logger, metrics: Metrics): Middleware<AppState> {
  const observed = childrenOf(metrics);
  /** After the rest has run or thrown: the security headers, the request's metrics and its log line. */
  const finish = (ctx: Context & { state: AppState }, state: AppState, started: number): void => {
    protectAnswer(ctx, state);
    const route = state.route;
    const seconds = (performance.now() - started) / 1000;
    observed.record(ctx.method, route ?? 'unmatched', ctx.status, seconds, state.askTimedOut === true);
    if (logger.isLevelEnabled('info')) {
      logger.info(
        {
          requestId: state.requestId,
          ...(state.callerRequestId === undefined ? {} : { callerRequestId: state.callerRequestId }),
          method: ctx.method,
          route: route ?? null,
          status: ctx.status,
          durationMs: seconds * 1000,
        },
        'request',
      );
    }
  };
  // Not an async function: the request's own promise and one `then`, where an async frame would
  // add a promise and a suspended frame to every request.
  const frame = function frame(ctx: Context & { state: AppState }, next: () => Promise<unknown>): Promise<void> {
    const started = performance.now();
    const given = ctx.req.headers['x-request-id'];
    const sane = typeof given === 'string' && SAFE_ID.test(given) ? given : undefined;
    const state = ctx.state;
    if (sane === undefined) state.requestId = randomUUID();
    else if (proxyHeadersTrusted(ctx)) state.requestId = sane;
    else {
      state.requestId = randomUUID();
      state.callerRequestId = sane;
    }
    ctx.res.setHeader('X-Request-Id', answeredRequestId(state));
    const failed = (error: unknown): void => {
      renderError(ctx, state, error, logger);
      finish(ctx, state, started);
    };
    // `next` is koa-compose's dispatch: a throw anywhere after the frame arrives as a rejection.
    return next().then(() => {
      try {
        const unrouted = unroutedError(ctx);
        if (unrouted) renderError(ctx, state, unrouted, logger);
      } catch (error) {
        return failed(error);
      }
      finish(ctx, state, started);
    }, failed);
  };
  // Decided once: while tracing is off, the frame is the only function around the request.
  if (!tracingEnabled()) return frame;
  return function tracedFrame(ctx, next) {
    return serverSpan(ctx, () => frame(ctx, next));
  };
}

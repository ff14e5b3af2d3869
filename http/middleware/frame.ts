import { randomUUID } from 'node:crypto';
import type { Context, Middleware } from 'koa';
import type { Counter, Histogram } from 'prom-client';
import type { Logger } from '../../src/logger.ts';
import type { Metrics } from '../../src/metrics.ts';
import type { AppState } from '../state.ts';
import { renderError, unroutedError } from './errors.ts';
import { serverSpan } from './server-span.ts';
import { tracingEnabled } from '../../src/telemetry/tracing.ts';

const SAFE_ID = /^[A-Za-z0-9._~:+=/-]{1,128}$/;

/** prom-client's label children, looked up once per label set (a bounded set: routes × statuses). */
function childrenOf(metrics: Metrics) {
  const durations = new Map<string, Histogram.Internal<'method' | 'route'>>();
  const requests = new Map<string, Counter.Internal>();
  return {
    record(method: string, route: string, status: number, seconds: number, askTimedOut: boolean): void {
      const key = `${method} ${route}`;
      let duration = durations.get(key);
      if (!duration) durations.set(key, (duration = metrics.httpDuration.labels({ method, route })));
      duration.observe(seconds);
      const statusKey = `${key} ${status}`;
      let count = requests.get(statusKey);
      if (!count)
        requests.set(statusKey, (count = metrics.httpRequests.labels({ method, route, status: String(status) })));
      count.inc();
      if (askTimedOut) metrics.askTimeouts.inc({ route });
    },
  };
}

/**
 * Every answer: no content sniffing (a JSON body is never taken for HTML). An answer to a request
 * that carried credentials or passed a token check is the caller's own: no cache may keep it
 * (`no-store`), unless its route said otherwise.
 */
function protectAnswer(ctx: Context, state: AppState): void {
  ctx.set('X-Content-Type-Options', 'nosniff');
  if ((state.auth !== undefined || ctx.get('Authorization') !== '') && !ctx.response.get('Cache-Control'))
    ctx.set('Cache-Control', 'no-store');
}

/**
 * The one middleware every request passes first, doing in one frame what would otherwise be five
 * (each an async function around the rest): every response carries `X-Request-Id` (the caller's
 * when it is 1–128 safe characters, else a new one); every error is rendered here (Koa's advice:
 * one error handler, first in the chain), and a request no route answered gets its 404/405
 * problem; while tracing is on, the request is a SERVER span (`server-span.ts`); every request is counted by route template (never the raw path: unbounded labels) and
 * status, and logged in one line (request id, method, route, status, duration; never the URL, as a
 * query string could carry credentials).
 */
export function requestFrame(logger: Logger, metrics: Metrics): Middleware<AppState> {
  const observed = childrenOf(metrics);
  const frame = async function frame(ctx: Context & { state: AppState }, next: () => Promise<unknown>): Promise<void> {
    const started = process.hrtime.bigint();
    const given = ctx.get('X-Request-Id');
    const state = ctx.state;
    state.requestId = given !== '' && SAFE_ID.test(given) ? given : randomUUID();
    ctx.set('X-Request-Id', state.requestId);
    try {
      await next();
      const unrouted = unroutedError(ctx);
      if (unrouted) renderError(ctx, state, unrouted, logger);
    } catch (error) {
      renderError(ctx, state, error, logger);
    }
    protectAnswer(ctx, state);
    const route = state.route;
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    observed.record(ctx.method, route ?? 'unmatched', ctx.status, seconds, state.askTimedOut === true);
    if (logger.isLevelEnabled('info')) {
      logger.info(
        {
          requestId: state.requestId,
          method: ctx.method,
          route: route ?? null,
          status: ctx.status,
          durationMs: seconds * 1000,
        },
        'request',
      );
    }
  };
  // Decided once: while tracing is off, the frame is the only function around the request.
  if (!tracingEnabled()) return frame;
  return function tracedFrame(ctx, next) {
    return serverSpan(ctx, () => frame(ctx, next));
  };
}

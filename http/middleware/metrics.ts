import type { Middleware } from 'koa';
import type { Metrics } from '../../src/metrics.ts';
import { matchedRoute, type AppState } from '../state.ts';

/** Counts every request by route template (never the raw path: unbounded labels) and status. */
export function requestMetrics(metrics: Metrics): Middleware<AppState> {
  return async function measureRequest(ctx, next) {
    const end = metrics.httpDuration.startTimer();
    try {
      await next();
    } finally {
      const route = matchedRoute(ctx) ?? 'unmatched';
      end({ method: ctx.method, route });
      metrics.httpRequests.inc({ method: ctx.method, route, status: String(ctx.status) });
      if (ctx.state.askTimedOut) metrics.askTimeouts.inc({ route });
    }
  };
}

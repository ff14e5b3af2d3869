import type { Middleware } from 'koa';
import type { Logger } from '../../src/logger.ts';
import { matchedRoute, type AppState } from '../state.ts';

/**
 * One log line per request: request id, method, route template, status, duration. The URL itself
 * is never logged, as a query string could carry credentials.
 */
export function requestLog(logger: Logger): Middleware<AppState> {
  return async function logRequest(ctx, next) {
    if (!logger.isLevelEnabled('info')) return next();
    const started = process.hrtime.bigint();
    try {
      await next();
    } finally {
      logger.info({
        requestId: ctx.state.requestId, method: ctx.method, route: matchedRoute(ctx) ?? null,
        status: ctx.status, durationMs: Number(process.hrtime.bigint() - started) / 1e6,
      }, 'request');
    }
  };
}

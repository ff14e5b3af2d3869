import type { Middleware } from 'koa';
import type { Logger } from '../../src/logger.ts';
import type { AppState } from '../state.ts';

/**
 * One log line per request: request id, method, route template, status, duration. The URL itself
 * is never logged, as a query string could carry credentials.
 */
export function requestLog(logger: Logger): Middleware<AppState> {
  return async function logRequest(ctx, next) {
    const started = process.hrtime.bigint();
    try {
      await next();
    } finally {
      const route = (ctx as { _matchedRoute?: string | RegExp })._matchedRoute;
      logger.info({
        requestId: ctx.state.requestId, method: ctx.method, route: route === undefined ? null : String(route),
        status: ctx.status, durationMs: Number(process.hrtime.bigint() - started) / 1e6,
      }, 'request');
    }
  };
}

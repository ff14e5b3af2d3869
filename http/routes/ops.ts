import Router from '@koa/router';
import type { Registry } from 'prom-client';
import type { AppState } from '../state.ts';

export interface OpsDeps {
  readonly metrics: Registry;
  /** Resolves when every store answers; rejects naming the one that does not. */
  readonly ready: () => Promise<void>;
}

/** Liveness, readiness and Prometheus metrics. */
export function opsRoutes(deps: OpsDeps): Router<AppState> {
  const router = new Router<AppState>();
  router.get('/health', async function health(ctx) {
    ctx.body = { status: 'ok' };
  });
  router.get('/ready', async function ready(ctx) {
    try {
      await deps.ready();
      ctx.body = { status: 'ready' };
    } catch (error) {
      ctx.status = 503;
      ctx.body = { status: 'unavailable', detail: error instanceof Error ? error.message : 'a store does not answer' };
    }
  });
  router.get('/metrics', async function metrics(ctx) {
    ctx.type = deps.metrics.contentType;
    ctx.body = await deps.metrics.metrics();
  });
  return router;
}

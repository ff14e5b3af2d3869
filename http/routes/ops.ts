import Router from '@koa/router';
import type { AppState } from '../state.ts';

export interface OpsDeps {
  /** Resolves when every store answers; rejects naming the one that does not. */
  readonly ready: () => Promise<void>;
}

/** Liveness and readiness. */
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
  return router;
}

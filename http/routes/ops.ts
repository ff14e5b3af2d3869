import { prometheusContentType } from 'prom-client';
import { RETRY_AFTER_SECONDS } from '../problems.ts';
import { PUBLIC, route, type Route } from '../route-table.ts';

export interface OpsRouteDeps {
  /** The Prometheus text of the service (of every worker, when there are several). */
  readonly metrics: () => Promise<string>;
  /** Resolves when every store answers and the signing-key set can be used; rejects naming what does not. */
  readonly ready: () => Promise<void>;
}

/** What `management.port` moves off the main port. */
export const MANAGEMENT_PATHS = ['/health', '/ready', '/metrics'] as const;
const [HEALTH, READY, METRICS] = MANAGEMENT_PATHS;

/** Liveness, readiness and Prometheus metrics. */
export function opsRoutes(deps: OpsRouteDeps): Route[] {
  return [
    route('GET', HEALTH, PUBLIC, async function health(ctx) {
      ctx.body = { status: 'ok' };
    }),
    route('GET', READY, PUBLIC, async function ready(ctx) {
      try {
        await deps.ready();
        ctx.body = { status: 'ready' };
      } catch (error) {
        ctx.status = 503;
        ctx.set('Retry-After', RETRY_AFTER_SECONDS);
        ctx.body = {
          status: 'unavailable',
          detail: error instanceof Error ? error.message : 'a store does not answer',
        };
      }
    }),
    route('GET', METRICS, PUBLIC, async function metrics(ctx) {
      ctx.type = prometheusContentType;
      ctx.body = await deps.metrics();
    }),
  ];
}

import { prometheusContentType } from 'prom-client';
import { RETRY_AFTER_SECONDS } from '../problems.ts';
import { text } from '../openapi/replies.ts';
import * as S from '../openapi/shapes.ts';
import { route, type Route } from '../route-table.ts';
import { PUBLIC } from '../guards.ts';

export interface OpsRouteDeps {
  /** The Prometheus text of the service (of every worker, when there are several). */
  readonly metrics: () => Promise<string>;
  /** Resolves when every store answers and the signing-key set can be used; rejects naming what does not. */
  readonly ready: () => Promise<void>;
}

/** What `management.port` moves off the main port. */
export const MANAGEMENT_PATHS = ['/health', '/ready', '/metrics'] as const;
const [HEALTH, READY, METRICS] = MANAGEMENT_PATHS;
const tag = 'operations';

/** Liveness, readiness and Prometheus metrics. */
export function opsRoutes(deps: OpsRouteDeps): Route[] {
  return [
    route(
      {
        method: 'GET',
        path: HEALTH,
        access: PUBLIC,
        tag,
        summary: 'Whether the server is running',
        replies: { 200: { description: 'The process runs', schema: S.Health } },
      },
      async function health(ctx) {
        ctx.body = { status: 'ok' };
      },
    ),
    route(
      {
        method: 'GET',
        path: READY,
        access: PUBLIC,
        tag,
        summary: 'Whether the server can serve requests: every store answers',
        replies: {
          200: { description: 'Ready', schema: S.Health },
          503: {
            description:
              'A store does not answer or is still being prepared, or the signing-key set in it cannot be used',
            schema: S.Health,
          },
        },
      },
      async function ready(ctx) {
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
      },
    ),
    route(
      {
        method: 'GET',
        path: METRICS,
        access: PUBLIC,
        tag,
        summary: 'Metrics, in the Prometheus text format',
        replies: { 200: text('Prometheus text format') },
      },
      async function metrics(ctx) {
        ctx.type = prometheusContentType;
        ctx.body = await deps.metrics();
      },
    ),
  ];
}

import cors from '@koa/cors';
import type { Middleware } from 'koa';
import type { AppState } from '../state.ts';

/**
 * CORS for the configured origins only (none by default). A preflight from an allowed origin is
 * answered here, before the bearer guard, so it never needs a token (also on /oauth/token).
 */
export function corsFor(allowedOrigins: readonly string[]): Middleware<AppState> {
  const allowed = new Set(allowedOrigins);
  return cors({
    origin: (ctx) => {
      const origin = ctx.get('Origin');
      return allowed.has(origin) ? origin : '';
    },
    // Every method a route takes (PATCH: /app/admin/users/:id); HEAD needs no preflight.
    allowMethods: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'],
    allowHeaders: ['Authorization', 'Content-Type', 'If-Match', 'X-Request-Id'],
    exposeHeaders: ['Location', 'ETag', 'Retry-After', 'X-Request-Id', 'WWW-Authenticate'],
    maxAge: 600,
  }) as Middleware<AppState>;
}

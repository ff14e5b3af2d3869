import { randomUUID } from 'node:crypto';
import type { Middleware } from 'koa';
import type { AppState } from '../state.ts';

const SAFE_ID = /^[A-Za-z0-9._~:+=/-]{1,128}$/;

/** Every response carries `X-Request-Id`: the caller's when it is 1–128 safe characters, else a new one. */
export function requestId(): Middleware<AppState> {
  return async function assignRequestId(ctx, next) {
    const given = ctx.get('X-Request-Id');
    ctx.state.requestId = SAFE_ID.test(given) ? given : randomUUID();
    ctx.set('X-Request-Id', ctx.state.requestId);
    await next();
  };
}

/**
 * Optimistic concurrency over HTTP: a record goes out with its version as its ETag, and an update
 * names the version it expects in `If-Match`.
 */
import type { Context } from 'koa';
import { invalidFields } from './problems.ts';

const JSON_TYPE = 'application/json; charset=utf-8';

/**
 * Answers with `record` as JSON, its version as the ETag (`"3"`), the value `If-Match` expects.
 * Both headers go straight to Node's response: Koa's `set` builds arrays for forms these never
 * take, and with the type set its body setter looks up no media type.
 */
export function sendVersioned(ctx: Context, record: { readonly version: number }, status = 200): void {
  ctx.status = status;
  ctx.res.setHeader('ETag', `"${record.version}"`);
  ctx.res.setHeader('Content-Type', JSON_TYPE);
  ctx.body = record;
}

/**
 * `If-Match: "<version>"` (a weak `W/` prefix and `*` are accepted); undefined when absent.
 * Anything else is a 400 problem.
 */
export function ifMatchVersion(ctx: Context): number | undefined {
  const header = ctx.get('If-Match').trim();
  if (header === '' || header === '*') return undefined;
  const m = /^(?:W\/)?"(\d{1,15})"$/.exec(header);
  if (!m?.[1])
    throw invalidFields('If-Match must be a quoted version such as "3"', { field: 'If-Match', message: 'malformed' });
  return Number(m[1]);
}

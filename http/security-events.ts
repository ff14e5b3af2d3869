/**
 * Security events: one log record per event, with a stable `event` name and stable fields, for a
 * SIEM or an alert to match on (docs/operations.md lists them). Each names who (the username or
 * the client id), from where (the client address as Koa resolves it, behind `server.trusted-proxies`),
 * and which request (`request_id`, and `trace_id` when the request is traced or came with a
 * `traceparent`). Never a password, secret or token: the subject is the only caller-given value.
 */
import type { Context } from 'koa';
import type { Logger } from '../src/logger.ts';
import { trace } from '../src/telemetry/tracing.ts';
import type { AppState } from './state.ts';

/** Every security event, with the level it is logged at. */
export const SECURITY_EVENTS = {
  'login.succeeded': 'info',
  'login.failed': 'warn',
  'login.throttled': 'warn',
  'token.refreshed': 'info',
  'token.reuse_detected': 'warn',
  'token.revoked': 'info',
  'client.authentication_failed': 'warn',
} as const satisfies Record<string, 'info' | 'warn'>;

export type SecurityEvent = keyof typeof SECURITY_EVENTS;

/** Who the event is about: a user of a client, or a client alone. */
export type Subject = { readonly username: string; readonly clientId?: string } | { readonly clientId: string };

/** What an event reads of the request. */
export type RequestOf = Pick<Context, 'ip' | 'get'> & { readonly state: Pick<AppState, 'requestId'> };

const TRACEPARENT = /^[0-9a-f]{2}-([0-9a-f]{32})-[0-9a-f]{16}-[0-9a-f]{2}$/;
const SUBJECT_MAX = 128;

/** The request's trace id: its active span's, else the caller's `traceparent`'s (tracing off), else null. */
function traceIdOf(ctx: RequestOf): string | null {
  const span = trace.getActiveSpan();
  if (span) return span.spanContext().traceId;
  const id = TRACEPARENT.exec(ctx.get('traceparent'))?.[1];
  return id !== undefined && !/^0+$/.test(id) ? id : null;
}

/** Logs `event` for the request in `ctx`. */
export function securityEvent(logger: Logger, ctx: RequestOf, event: SecurityEvent, subject: Subject): void {
  const level = SECURITY_EVENTS[event];
  if (!logger.isLevelEnabled(level)) return;
  logger[level](
    {
      event,
      ...('username' in subject ? { username: subject.username.slice(0, SUBJECT_MAX) } : {}),
      ...(subject.clientId === undefined ? {} : { client_id: subject.clientId.slice(0, SUBJECT_MAX) }),
      client_address: ctx.ip,
      request_id: ctx.state.requestId,
      trace_id: traceIdOf(ctx),
    },
    event,
  );
}

/**
 * Security events: one log record per event, with a stable `event` name and stable fields, for a
 * SIEM or an alert to match on (docs/operations.md lists them). Each names who (the username or
 * the client id), from where (the client address as Koa resolves it, behind `server.trusted-proxies`),
 * and which request: `request_id` and `trace_id` are the server's own (or, behind a trusted proxy,
 * the proxy's), never ids an unauthenticated caller chose; a caller's own `X-Request-Id` and
 * `traceparent` trace id are kept apart, as `caller_request_id` and `caller_trace_id`. Never a
 * password, secret or token: the subject is the only caller-given value besides those two.
 */
import type { Context } from 'koa';
import type { Logger } from '../src/logger.ts';
import { trace } from '../src/telemetry/tracing.ts';
import { proxyHeadersTrusted, type AppState } from './state.ts';

/** Every security event, with the level it is logged at. */
export const SECURITY_EVENTS = {
  'login.succeeded': 'info',
  'login.failed': 'warn',
  'login.throttled': 'warn',
  'token.refreshed': 'info',
  'token.reuse_detected': 'warn',
  'token.revoked': 'info',
  'code.reuse_detected': 'warn',
  'client.token_issued': 'info',
  'client.authentication_failed': 'warn',
  'password.changed': 'info',
  'password.change_failed': 'warn',
  'consent.granted': 'info',
  'consent.denied': 'info',
  'consent.withdrawn': 'info',
  'session.started': 'info',
  'session.ended': 'info',
} as const satisfies Record<string, 'info' | 'warn'>;

export type SecurityEvent = keyof typeof SECURITY_EVENTS;

/** Who the event is about: a user of a client, or a client alone. */
export type Subject = { readonly username: string; readonly clientId?: string } | { readonly clientId: string };

/** What an event may carry besides its subject: the scope granted, space-separated; why a session ended. */
export interface Details {
  readonly scope?: string;
  readonly reason?: string;
}

/** What an event reads of the request. */
export type RequestOf = Pick<Context, 'ip' | 'get' | 'app'> & {
  readonly state: Pick<AppState, 'requestId' | 'callerRequestId'>;
};

const TRACEPARENT = /^[0-9a-f]{2}-([0-9a-f]{32})-[0-9a-f]{16}-[0-9a-f]{2}$/;
const SUBJECT_MAX = 128;

/** The trace id of the request's `traceparent` header, or null. */
function sentTraceId(ctx: RequestOf): string | null {
  const id = TRACEPARENT.exec(ctx.get('traceparent'))?.[1];
  return id !== undefined && !/^0+$/.test(id) ? id : null;
}

/**
 * The request's trace id: its active span's (a trace of its own unless a trusted proxy sent the
 * context), else with tracing off a trusted proxy's `traceparent`'s, else null; and the trace id
 * a caller sent where no trusted proxy stands in front.
 */
function traceIdsOf(ctx: RequestOf): { trace_id: string | null; caller_trace_id: string | null } {
  const trusted = proxyHeadersTrusted(ctx);
  const sent = sentTraceId(ctx);
  const span = trace.getActiveSpan();
  return {
    trace_id: span ? span.spanContext().traceId : trusted ? sent : null,
    caller_trace_id: trusted ? null : sent,
  };
}

/** Logs `event` for the request in `ctx`. */
export function securityEvent(
  logger: Logger,
  ctx: RequestOf,
  event: SecurityEvent,
  subject: Subject,
  details: Details = {},
): void {
  const level = SECURITY_EVENTS[event];
  if (!logger.isLevelEnabled(level)) return;
  logger[level](
    {
      event,
      ...('username' in subject ? { username: subject.username.slice(0, SUBJECT_MAX) } : {}),
      ...(subject.clientId === undefined ? {} : { client_id: subject.clientId.slice(0, SUBJECT_MAX) }),
      ...(details.scope === undefined ? {} : { scope: details.scope }),
      ...(details.reason === undefined ? {} : { reason: details.reason }),
      client_address: ctx.ip,
      request_id: ctx.state.requestId,
      caller_request_id: ctx.state.callerRequestId ?? null,
      ...traceIdsOf(ctx),
    },
    event,
  );
}

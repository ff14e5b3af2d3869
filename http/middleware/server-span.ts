/**
 * The request's SERVER span: it continues the caller's trace (`traceparent`, `tracestate`) or
 * starts one, is named by the route template (`GET /api/employee/:id`, never the raw path), and
 * carries the HTTP semantic-convention attributes. Never the query string, nor any header but the
 * user agent: either may carry credentials.
 */
import type { Context } from 'koa';
import {
  SpanKind,
  SpanStatusCode,
  context,
  propagation,
  trace,
  troupeTracer,
  ROOT_CONTEXT,
} from '../../src/telemetry/tracing.ts';
import type { AppState } from '../state.ts';

export async function serverSpan(ctx: Context & { state: AppState }, run: () => Promise<void>): Promise<void> {
  const parent = propagation.extract(ROOT_CONTEXT, ctx.headers);
  const span = troupeTracer().startSpan(
    ctx.method,
    {
      kind: SpanKind.SERVER,
      attributes: {
        'http.request.method': ctx.method,
        'url.scheme': ctx.protocol,
        'url.path': ctx.path,
        'network.protocol.version': ctx.req.httpVersion,
        'client.address': ctx.ip,
        'server.port': ctx.req.socket.localPort ?? 0,
        'user_agent.original': ctx.get('User-Agent'),
      },
    },
    parent,
  );
  try {
    await context.with(trace.setSpan(parent, span), run);
  } finally {
    const route = ctx.state.route;
    if (route !== undefined) {
      span.updateName(`${ctx.method} ${route}`);
      span.setAttribute('http.route', route);
    }
    span.setAttribute('http.response.status_code', ctx.status);
    if (ctx.status >= 500) {
      span.setStatus({ code: SpanStatusCode.ERROR });
      span.setAttribute('error.type', String(ctx.status));
    }
    span.end();
  }
}

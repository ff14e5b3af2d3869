/**
 * The request's SERVER span, named by the route template (`GET /api/employee/:id`, never the raw
 * path), with the HTTP semantic-convention attributes. Never the query string, nor any header but
 * the user agent: either may carry credentials.
 *
 * Behind `server.trusted-proxies` it continues the trace the proxy sent (`traceparent`,
 * `tracestate`, baggage), and the configured sampler follows its sampled flag as usual. Otherwise
 * the caller's trace context is not its parent: the span starts a trace of its own, so the
 * configured sampler decides as for any new trace (a caller's sampled flag cannot turn sampling on,
 * nor can its trace id pick a ratio sampler's outcome), and the ids recorded are the server's. The
 * caller's span, when it sent a valid one, is kept as a link for a backend to join the two.
 */
import type { Context } from 'koa';
import { SpanKind, SpanStatusCode, context, requestParent, trace, troupeTracer } from '../../src/telemetry/tracing.ts';
import { proxyHeadersTrusted, type AppState } from '../state.ts';

export async function serverSpan(ctx: Context & { state: AppState }, run: () => Promise<void>): Promise<void> {
  const { parent, links } = requestParent(ctx.headers, proxyHeadersTrusted(ctx));
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
      links,
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

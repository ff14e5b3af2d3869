/**
 * Whether this process traces, and the few OpenTelemetry calls the rest of the code makes. Tracing
 * is on only once `sdk.ts` started the SDK (from `register.ts`, or a test with span processors of
 * its own); while it is off every hook in the code is one boolean test, and no span, context or
 * carrier is ever built.
 */
import {
  ROOT_CONTEXT,
  SpanStatusCode,
  context,
  isSpanContextValid,
  propagation,
  trace,
  type Attributes,
  type Context,
  type Link,
  type Span,
  type SpanKind,
  type Tracer,
} from '@opentelemetry/api';

export { ROOT_CONTEXT, SpanKind, SpanStatusCode, context, trace } from '@opentelemetry/api';
export type { Attributes, Context, Span };

let enabled = false;
let tracer: Tracer | undefined;

/** True once a tracer provider is registered for this process. */
export const tracingEnabled = (): boolean => enabled;

/** Marks tracing on: spans, envelopes and log fields follow from here. */
export function enableTracing(): void {
  enabled = true;
  tracer = undefined;
}

let shutdown: (() => Promise<void>) | undefined;

/** Remembers how to flush and stop the SDK that `register.ts` started. */
export function onTracingShutdown(stop: () => Promise<void>): void {
  shutdown = stop;
}

/** Exports the spans still buffered and stops the SDK; nothing when tracing is off. */
export async function shutdownTracing(): Promise<void> {
  const stop = shutdown;
  shutdown = undefined;
  await stop?.();
}

/** Marks tracing off again (tests that register and then remove a provider). */
export function disableTracing(): void {
  enabled = false;
  tracer = undefined;
}

/** The tracer every span of troupe is started with (instrumentation scope `troupe`). */
export function troupeTracer(): Tracer {
  return (tracer ??= trace.getTracer('troupe'));
}

/** `trace_id` and `span_id` of the active span, for log lines; empty when none is active. */
export function activeTraceFields(): { trace_id?: string; span_id?: string } {
  const span = trace.getActiveSpan();
  if (!span) return {};
  const { traceId, spanId } = span.spanContext();
  return { trace_id: traceId, span_id: spanId };
}

/** Ends `span` with an error status and the error's class (never its message: it may quote input). */
export function failSpan(span: Span, error: unknown): void {
  span.setStatus({ code: SpanStatusCode.ERROR });
  span.setAttribute('error.type', error instanceof Error ? error.constructor.name : typeof error);
}

/**
 * Runs `work` inside a new span under the active context and ends the span when `work` settles
 * (a thrown error marks it failed and is rethrown).
 */
export function inSpan<T>(name: string, attributes: Attributes, kind: SpanKind, work: () => T, parent?: Context): T {
  const span = troupeTracer().startSpan(name, { kind, attributes }, parent ?? context.active());
  const end = (error?: unknown): void => {
    if (error !== undefined) failSpan(span, error);
    span.end();
  };
  let result: T;
  try {
    result = context.with(trace.setSpan(parent ?? context.active(), span), work);
  } catch (error) {
    end(error);
    throw error;
  }
  if (result instanceof Promise)
    return result.then(
      (value: unknown) => {
        end();
        return value;
      },
      (error: unknown) => {
        end(error ?? 'rejected');
        throw error;
      },
    ) as T;
  end();
  return result;
}

/** A W3C trace context as it travels: `traceparent` and, when present, `tracestate`. */
export interface TraceCarrier {
  traceparent?: string;
  tracestate?: string;
}

/** The active context as a W3C carrier, or undefined when no span is active. */
export function activeCarrier(): TraceCarrier | undefined {
  const active = context.active();
  if (!trace.getSpan(active)) return undefined;
  const carrier: TraceCarrier = {};
  propagation.inject(active, carrier);
  return carrier.traceparent === undefined ? undefined : carrier;
}

/** The context a carrier names, under the root context. */
export const contextOf = (carrier: TraceCarrier): Context => propagation.extract(ROOT_CONTEXT, carrier);

/**
 * The parent of a span for a request from outside, from the trace context its headers carry.
 * `trusted` (a proxy's headers): that trace continues. Otherwise the span starts a trace of its
 * own, and the caller's span, when it sent a valid one, is kept as a link.
 */
export function requestParent(
  headers: Readonly<Record<string, string | string[] | undefined>>,
  trusted: boolean,
): { parent: Context; links: Link[] } {
  const sent = propagation.extract(ROOT_CONTEXT, headers);
  if (trusted) return { parent: sent, links: [] };
  const caller = trace.getSpanContext(sent);
  return {
    parent: ROOT_CONTEXT,
    links: caller !== undefined && isSpanContextValid(caller) ? [{ context: caller }] : [],
  };
}

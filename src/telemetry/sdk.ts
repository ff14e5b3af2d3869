/**
 * The OpenTelemetry Node SDK, configured by the standard environment (`OTEL_TRACES_EXPORTER`,
 * `OTEL_EXPORTER_OTLP_*`, `OTEL_SERVICE_NAME`, `OTEL_TRACES_SAMPLER`, …), with the MongoDB driver's
 * instrumentation. Loaded only when tracing is wanted (`register.ts`), or by tests.
 */
import { MongoDBInstrumentation } from '@opentelemetry/instrumentation-mongodb';
import { NodeSDK } from '@opentelemetry/sdk-node';
import type { SpanProcessor } from '@opentelemetry/sdk-trace';
import { context, propagation, trace } from '@opentelemetry/api';
import { disableTracing, enableTracing, onTracingShutdown } from './tracing.ts';

/**
 * Starts the SDK and marks tracing on. `spanProcessors` replace the exporter the environment names
 * (tests pass an in-memory one). Metrics stay Prometheus's and logs stay pino's: the SDK exports
 * neither unless `OTEL_METRICS_EXPORTER` or `OTEL_LOGS_EXPORTER` says so.
 */
export function startTracing(spanProcessors?: SpanProcessor[]): () => Promise<void> {
  process.env['OTEL_METRICS_EXPORTER'] ??= 'none';
  process.env['OTEL_LOGS_EXPORTER'] ??= 'none';
  const sdk = new NodeSDK({
    instrumentations: [new MongoDBInstrumentation({ enhancedDatabaseReporting: false })],
    ...(spanProcessors ? { spanProcessors } : {}),
  });
  sdk.start();
  enableTracing();
  const stop = async (): Promise<void> => {
    disableTracing();
    await sdk.shutdown();
    // The API's globals go too, so that a provider can be registered again in the same process.
    trace.disable();
    context.disable();
    propagation.disable();
  };
  onTracingShutdown(stop);
  return stop;
}

/**
 * `node --import ./src/telemetry/register.ts`: starts OpenTelemetry before koa, http or mongodb is
 * loaded (instrumentations patch modules as they load), and only when the standard environment
 * asks for traces. Otherwise it imports nothing: no SDK, no provider, no cost.
 */
const env = process.env;
const exporters = (env['OTEL_TRACES_EXPORTER'] ?? '')
  .split(',')
  .map((name) => name.trim())
  .filter((name) => name !== '' && name !== 'none');
const endpoint = env['OTEL_EXPORTER_OTLP_TRACES_ENDPOINT'] ?? env['OTEL_EXPORTER_OTLP_ENDPOINT'];
const disabled = (env['OTEL_SDK_DISABLED'] ?? '').trim().toLowerCase() === 'true';
const explicitlyNone = (env['OTEL_TRACES_EXPORTER'] ?? '').trim() === 'none';

if (!disabled && !explicitlyNone && (exporters.length > 0 || (endpoint !== undefined && endpoint !== ''))) {
  const { startTracing } = await import('./sdk.ts');
  startTracing();
}

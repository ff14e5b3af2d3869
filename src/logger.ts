/**
 * JSON-lines logging; every line carries the process id (`pid`), which tells the workers of one
 * server, or several instances, apart. Secrets are redacted by path as a second line of defence:
 * code never logs them. While tracing is on, lines written inside a span carry `trace_id` and
 * `span_id`.
 */
import { pino, type Logger } from 'pino';
import { activeTraceFields, tracingEnabled } from './telemetry/tracing.ts';

export type { Logger };

const REDACT = [
  'authorization',
  '*.authorization',
  'headers.authorization',
  '*.headers.authorization',
  'cookie',
  '*.cookie',
  'password',
  '*.password',
  'secret',
  '*.secret',
  'client_secret',
  '*.client_secret',
  'token',
  '*.token',
  'access_token',
  '*.access_token',
  'refresh_token',
  '*.refresh_token',
  'signingKey',
  '*.signingKey',
  'previousSigningKeys',
  '*.previousSigningKeys',
  'encryptionSecret',
  '*.encryptionSecret',
];

export function createLogger(level: string, destination: NodeJS.WritableStream = process.stdout): Logger {
  // While tracing is on, a line written inside a span carries its `trace_id` and `span_id`.
  const mixin = tracingEnabled() ? activeTraceFields : undefined;
  return pino(
    { level, base: { pid: process.pid }, redact: { paths: REDACT, censor: '[redacted]' }, ...(mixin ? { mixin } : {}) },
    destination,
  );
}

/**
 * JSON-lines logging; every line carries the process id (`pid`), which tells the workers of one
 * server, or several instances, apart. Secrets are redacted by path as a second line of defence:
 * code never logs them. While tracing is on, lines written inside a span carry `trace_id` and
 * `span_id`. At a terminal, outside production, the same lines are printed for a person instead
 * (`[12:04:05] INFO (4242): troupe listening {"url":…}`), redacted alike: pino redacts before
 * anything is written.
 */
import { pino, type Logger } from 'pino';
import { PinoPretty } from 'pino-pretty';
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
  'id_token',
  '*.id_token',
  'idToken',
  '*.idToken',
  'signingKey',
  '*.signingKey',
  'previousSigningKeys',
  '*.previousSigningKeys',
  'encryptionSecret',
  '*.encryptionSecret',
];

/** `json`: one JSON object a line, for machines. `pretty`: one short line each, for a person. */
export type LogFormat = 'json' | 'pretty';

/**
 * The server's format: pretty lines for a person at a terminal (`destination` a TTY), JSON lines
 * for anything else (a file, a pipe, a log collector) and always in production, whatever it writes to.
 */
export function logFormat(production: boolean, destination: { readonly isTTY?: boolean } = process.stdout): LogFormat {
  return !production && destination.isTTY === true ? 'pretty' : 'json';
}

/** Lines for a person, in the REPL's form, with the pid (workers) and the fields on the same line. */
const pretty = (destination: NodeJS.WritableStream): NodeJS.WritableStream =>
  PinoPretty({
    destination,
    sync: true,
    singleLine: true,
    ignore: 'hostname',
    translateTime: 'HH:MM:ss',
  });

export function createLogger(
  level: string,
  destination: NodeJS.WritableStream = process.stdout,
  format: LogFormat = 'json',
): Logger {
  // While tracing is on, a line written inside a span carries its `trace_id` and `span_id`.
  const mixin = tracingEnabled() ? activeTraceFields : undefined;
  return pino(
    { level, base: { pid: process.pid }, redact: { paths: REDACT, censor: '[redacted]' }, ...(mixin ? { mixin } : {}) },
    format === 'pretty' ? pretty(destination) : destination,
  );
}

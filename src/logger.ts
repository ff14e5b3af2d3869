/**
 * JSON-lines logging; every line carries the process id (`pid`), which tells the workers of one
 * server, or several instances, apart. Secrets are redacted by path as a second line of defence:
 * code never logs them.
 */
import { pino, type Logger } from 'pino';

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
  return pino({ level, base: { pid: process.pid }, redact: { paths: REDACT, censor: '[redacted]' } }, destination);
}

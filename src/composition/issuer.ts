/**
 * The issuer every token names, when `security.jwt.issuer` is unset: the default `http://HOST:PORT`
 * of the first start on a data directory, written there as `issuer` and read by every later start.
 * So a second process on the same data directory, on another port (or the REPL), issues and accepts
 * the same tokens as the first, and its metadata names the same issuer (RFC 8414: the `issuer` of
 * the metadata is the `iss` of the tokens).
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError, type Config } from '../config.ts';
import type { Logger } from '../logger.ts';
import { PRIVATE_DIR } from '../stores/sqlite.ts';
import { deepFreeze } from '../config/typed-config.ts';

export const ISSUER_FILE = 'issuer';

/** An issuer as the file may hold it: one line of visible characters, as a configured one. */
const ISSUER = /^[\x21-\x7e]{1,2048}$/;

function errno(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException).code;
}

/** Writes `issuer` as the data directory's, unless one is there: true when this call wrote it. */
function storeFirst(path: string, dir: string, issuer: string): boolean {
  mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR });
  try {
    writeFileSync(path, `${issuer}\n`, { flag: 'wx', mode: 0o600 });
    return true;
  } catch (error) {
    if (errno(error) === 'EEXIST') return false;
    throw error;
  }
}

/**
 * The configuration with the issuer it serves: a configured `security.jwt.issuer` as it is, else
 * the data directory's. A directory that cannot be written keeps the default of this start (with a
 * warning: another process on it would then name another issuer); a stored issuer that is not one
 * line of visible characters stops the start, naming the file and the key.
 */
export function withDataDirIssuer(config: Config, logger: Logger): Config {
  if (config.issuerConfigured) return config;
  const dir = config.data.dir;
  const path = join(dir, ISSUER_FILE);
  const fallback = config.security.jwt.issuer;
  try {
    if (storeFirst(path, dir, fallback)) {
      logger.info({ issuer: fallback, file: path }, 'issuer of this data directory stored (security.jwt.issuer unset)');
      return config;
    }
  } catch (error) {
    logger.warn(
      { issuer: fallback, file: path, code: errno(error) },
      'cannot store the issuer in the data directory: set security.jwt.issuer so that every process names the same',
    );
    return config;
  }
  let stored = '';
  try {
    stored = readFileSync(path, 'utf8').trim();
  } catch {
    // unreadable: refused below as a file that holds no issuer
  }
  if (!ISSUER.test(stored))
    throw new ConfigError(
      `Invalid configuration: ${path} holds no issuer; set security.jwt.issuer, or remove the file to store this start's`,
    );
  if (stored === fallback) return config;
  const { security } = config;
  return deepFreeze({ ...config, security: { ...security, jwt: { ...security.jwt, issuer: stored } } });
}

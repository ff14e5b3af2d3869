/**
 * The issuer every token names, when `security.jwt.issuer` is unset: the default `http://HOST:PORT`
 * of the first server that listens on a data directory, written there as `issuer` and read by every
 * later start. So a second process on the same data directory, on another port (or the REPL),
 * issues and accepts the same tokens as the first, and its metadata names the same issuer (RFC
 * 8414: the `issuer` of the metadata is the `iss` of the tokens). A start that never listens (its
 * port taken) and the REPL, which serves no HTTP, store none: they would pin a URL nothing serves.
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

/** The stored issuer, undefined when there is no file; one that is not an issuer stops the start. */
function readStored(path: string): string | undefined {
  let stored = '';
  try {
    stored = readFileSync(path, 'utf8').trim();
  } catch (error) {
    if (errno(error) === 'ENOENT') return undefined;
    // unreadable: refused below as a file that holds no issuer
  }
  if (!ISSUER.test(stored))
    throw new ConfigError(
      `Invalid configuration: ${path} holds no issuer; set security.jwt.issuer, or remove the file to store this start's`,
    );
  return stored;
}

/**
 * The configuration with the issuer it serves: a configured `security.jwt.issuer` as it is, else
 * the data directory's, else this start's default. Writes nothing (see {@link storeDataDirIssuer}).
 */
export function withDataDirIssuer(config: Config): Config {
  if (config.issuerConfigured) return config;
  const stored = readStored(join(config.data.dir, ISSUER_FILE));
  if (stored === undefined || stored === config.security.jwt.issuer) return config;
  const { security } = config;
  return deepFreeze({ ...config, security: { ...security, jwt: { ...security.jwt, issuer: stored } } });
}

/** Hosts a server listens on to accept connections on every interface: no client reaches one by it. */
const UNSPECIFIED = new Set(['0.0.0.0', '[::]']);

/**
 * A warning when the issuer served names the unspecified address (`server.host` 0.0.0.0 or ::, as
 * in a container, with `security.jwt.issuer` unset): no client reaches a server at
 * `http://0.0.0.0:8080`, so discovery (whose `issuer` must be the URL a client used) and the
 * endpoints it names fail for every client.
 */
function warnIfUnreachable(issuer: string, logger: Logger): void {
  if (!UNSPECIFIED.has(URL.parse(issuer)?.hostname ?? '')) return;
  logger.warn(
    { issuer, key: 'security.jwt.issuer' },
    `tokens and metadata name the issuer ${issuer}, an address no client reaches: ` +
      'set security.jwt.issuer to the URL clients use',
  );
}

/**
 * Called once this start listens: stores its default as the data directory's issuer unless one is
 * there (an atomic create, so that of several starting at once the first decides and all read it).
 * A stored issuer other than where this server listens is served, with a warning naming both and
 * the key; a directory that cannot be written keeps this start's default, with a warning too. An
 * issuer served on the unspecified address is warned about ({@link warnIfUnreachable}).
 */
export function storeDataDirIssuer(config: Config, logger: Logger): void {
  if (config.issuerConfigured) return;
  warnIfUnreachable(storeOrRead(config, logger), logger);
}

/** The issuer this start serves: its default, stored now or not storable, or the one stored before. */
function storeOrRead(config: Config, logger: Logger): string {
  const dir = config.data.dir;
  const file = join(dir, ISSUER_FILE);
  const listening = config.security.jwt.issuer;
  try {
    mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR });
    writeFileSync(file, `${listening}\n`, { flag: 'wx', mode: 0o600 });
    logger.info({ issuer: listening, file }, 'issuer of this data directory stored (security.jwt.issuer unset)');
    return listening;
  } catch (error) {
    if (errno(error) !== 'EEXIST') {
      logger.warn(
        { issuer: listening, file, code: errno(error) },
        'cannot store the issuer in the data directory: set security.jwt.issuer so that every process names the same',
      );
      return listening;
    }
  }
  const stored = readStored(file);
  if (stored === undefined || stored === listening) return listening;
  logger.warn(
    { issuer: stored, listening, file, key: 'security.jwt.issuer' },
    `tokens and metadata name the issuer ${stored} stored in ${file}, not ${listening} where this server listens: ` +
      "set security.jwt.issuer to choose, or remove the file to store the next start's",
  );
  return stored;
}

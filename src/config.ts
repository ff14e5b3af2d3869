/**
 * The only reader of the environment and of `application.properties`. Sources, later ones winning:
 * built-in development defaults, the properties file, environment variables by relaxed binding
 * (`SECURITY_JWT_CLIENT_ID` sets `security.jwt.client-id`; a secret key's variable may instead name
 * a file holding it, `SECURITY_JWT_CLIENT_SECRET_FILE`), the command line (`--server.port=9090`).
 * The result is typed and frozen. An unknown key in a file or on the command line, or an unknown
 * variable under one of the keys' prefixes (`SECURITY_…`), is a warning naming the closest known
 * one. The keys and their parsers are in `config/schema.ts`, the typed shape of the result in
 * `config/typed-config.ts`; every other module imports this one.
 */
import { existsSync, readFileSync } from 'node:fs';
import { parse as parseProperties } from 'dot-properties';
import { closestName as closestKey } from './spelling.ts';
import { CONFIG_KEYS, DEV_CLIENT_SECRET_HASH, schema, SECRET_KEYS, type Parsed } from './config/schema.ts';
import { deepFreeze, nest, type Config, type Resolved } from './config/typed-config.ts';
import { urlOf } from './listen-url.ts';

export { CONFIG_KEYS, DEV_CLIENT_SECRET_HASH, type GrantType, type ServiceName } from './config/schema.ts';
export type { Config } from './config/typed-config.ts';

/** Bad configuration: the message is one line naming the key, and never echoes a secret. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

/**
 * Runs a start-up step of an entry point (`npm start`, the REPL); a {@link ConfigError} ends the
 * process with its one line on stderr and exit code 1, no stack.
 */
export async function orExit<T>(step: () => Promise<T> | T): Promise<T> {
  try {
    return await step();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`${error.message}\n`);
    process.exit(1);
  }
}

export interface ConfigSources {
  /** Environment variables (relaxed binding); defaults to none. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Keys as in application.properties, applied after the file and before the environment. */
  readonly properties?: Readonly<Record<string, string>>;
  /** Path of an application.properties file to read. */
  readonly file?: string;
  /** Keys given on the command line (see `config/args.ts`), applied last. */
  readonly commandLine?: Readonly<Record<string, string>>;
  /**
   * Told of each unknown key in the file, the properties or the command line, and of each unknown
   * environment variable under a prefix of the keys (`SERVER_`, `SECURITY_`, …); default: ignored.
   */
  readonly onWarning?: (message: string) => void;
}

const envName = (key: string): string => key.toUpperCase().replace(/[.-]/g, '_');

const KNOWN: ReadonlySet<string> = new Set(CONFIG_KEYS);

/** Copies `from` into `raw`, warning of each key no parser reads (a typo would otherwise pass unseen). */
function take(
  raw: Record<string, string>,
  from: Readonly<Record<string, string>>,
  where: string,
  sources: ConfigSources,
) {
  for (const [key, value] of Object.entries(from)) {
    if (!KNOWN.has(key))
      sources.onWarning?.(
        `unknown configuration key "${key}" ${where}, ignored; the closest known key is ${closestKey(key, CONFIG_KEYS)}`,
      );
    raw[key] = value;
  }
}

function collect(sources: ConfigSources): Record<string, string> {
  const raw: Record<string, string> = {};
  if (sources.file !== undefined) take(raw, readPropertiesFile(sources.file), `in ${sources.file}`, sources);
  take(raw, sources.properties ?? {}, 'in the properties', sources);
  const env = sources.env ?? {};
  if (env['PORT'] !== undefined) raw['server.port'] = env['PORT'];
  for (const key of CONFIG_KEYS) {
    const value = envValue(env, key);
    if (value !== undefined) raw[key] = value;
  }
  warnOfUnknownVariables(env, sources);
  take(raw, sources.commandLine ?? {}, 'on the command line', sources);
  return raw;
}

/**
 * A secret key's value from the environment: its variable, or the file its `_FILE` variable names
 * (as container platforms hand secrets over: Docker and Kubernetes secrets are mounted files), with
 * the file's trailing line break dropped. Both set, or a file that cannot be read, is refused,
 * naming the variables and never a value.
 */
function envValue(env: Readonly<Record<string, string | undefined>>, key: string): string | undefined {
  const name = envName(key);
  const value = env[name];
  const file = SECRET_KEYS.has(key) ? env[`${name}_FILE`] : undefined;
  if (file === undefined) return value;
  if (value !== undefined)
    throw new ConfigError(`Invalid configuration: ${name} and ${name}_FILE are both set (${key}); set one of them`);
  try {
    return readFileSync(file, 'utf8').replace(/[\r\n]+$/, '');
  } catch (error) {
    throw new ConfigError(
      `Invalid configuration: ${name}_FILE (${key}): cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? 'error'})`,
    );
  }
}

const FILE_VARIABLES: readonly (readonly [string, string])[] = CONFIG_KEYS.filter((key) => SECRET_KEYS.has(key)).map(
  (key) => [`${envName(key)}_FILE`, key],
);
const KNOWN_ENV: ReadonlyMap<string, string> = new Map([
  ...CONFIG_KEYS.map((key): [string, string] => [envName(key), key]),
  ...FILE_VARIABLES,
]);
const ENV_NAMES: readonly string[] = [...KNOWN_ENV.keys()];
/** The first segments of the keys (`SERVER`, `SECURITY`, …): a variable under one of them is meant for us. */
const OWN_PREFIXES: readonly string[] = [...new Set(CONFIG_KEYS.map((key) => envName(key.split('.')[0] ?? key)))];

/**
 * Warns of each variable named like ours (`SECURITY_JWT_CLIENTID`) that sets nothing, as of an
 * unknown key in a file. Other prefixes (`OTEL_`, `NODE_`, …) belong to others and are left alone.
 */
function warnOfUnknownVariables(env: Readonly<Record<string, string | undefined>>, sources: ConfigSources): void {
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined || KNOWN_ENV.has(name)) continue;
    if (!OWN_PREFIXES.some((prefix) => name === prefix || name.startsWith(`${prefix}_`))) continue;
    const closest = closestKey(name, ENV_NAMES);
    const hint = closest === undefined ? '' : `; the closest known variable is ${closest} (${KNOWN_ENV.get(closest)})`;
    sources.onWarning?.(`unknown configuration variable "${name}" in the environment, ignored${hint}`);
  }
}

function readPropertiesFile(path: string): Record<string, string> {
  try {
    return parseProperties(readFileSync(path, 'utf8'), false) as Record<string, string>;
  } catch (error) {
    throw new ConfigError(
      `Invalid configuration: cannot read ${path} (${(error as NodeJS.ErrnoException).code ?? 'error'})`,
    );
  }
}

function parse(raw: Record<string, string>): Parsed {
  const result = schema.safeParse(raw);
  if (result.success) return result.data;
  const lines = result.error.issues.map((issue) => {
    const key = String(issue.path[0] ?? '?');
    const got = SECRET_KEYS.has(key) ? '' : ` (got "${raw[key] ?? ''}")`;
    return `${key}: ${issue.message}${got}`;
  });
  throw new ConfigError(`Invalid configuration: ${lines.join('; ')}`);
}

/** Loads, validates and freezes the configuration. Throws {@link ConfigError}. */
export function loadConfig(sources: ConfigSources = {}, production = false): Config {
  const raw = collect(sources);
  const v = parse(raw);
  const headersTimeout = v['server.headers-timeout-ms'] ?? Math.min(10_000, v['server.request-timeout-ms']);
  if (headersTimeout > v['server.request-timeout-ms']) {
    throw new ConfigError(
      `Invalid configuration: server.headers-timeout-ms: must not exceed server.request-timeout-ms (${v['server.request-timeout-ms']})`,
    );
  }
  const resolved: Resolved = {
    ...v,
    'server.headers-timeout-ms': headersTimeout,
    'security.jwt.issuer': v['security.jwt.issuer'] ?? urlOf({ address: v['server.host'], port: v['server.port'] }),
  };
  if (v['security.clients-file'].some((c) => c.clientId === v['security.jwt.client-id']))
    throw new ConfigError(
      `Invalid configuration: security.clients-file: client_id ${v['security.jwt.client-id']} is security.jwt.client-id's`,
    );
  const files = { properties: sources.file, clients: raw['security.clients-file']?.trim() || undefined };
  const config = {
    production,
    issuerConfigured: v['security.jwt.issuer'] !== undefined,
    files,
    ...nest(resolved),
  } as Config;
  if (production) guardProduction(config);
  if (config.security.previousSigningKeys !== undefined && config.security.signingKey === undefined)
    throw new ConfigError(
      'Invalid configuration: security.previous-signing-keys: needs security.signing-key (without it the key set in the store keeps its own previous keys)',
    );
  guardPublishAhead(config);
  return deepFreeze(config);
}

/**
 * A new key must be seen by every instance before it signs: on MongoDB an instance sees a change
 * within `security.revocation-sync-ms`, so a shorter publish-ahead time (0 aside: at once, by
 * choice) could have one instance sign with a key another does not know yet.
 */
function guardPublishAhead(config: Config): void {
  const ahead = config.security.keys.publishAheadSeconds;
  if (config.mongodb.uri !== undefined && ahead > 0 && ahead * 1000 <= config.security.revocationSyncMs)
    throw new ConfigError(
      `Invalid configuration: security.keys.publish-ahead-seconds: must exceed security.revocation-sync-ms (${config.security.revocationSyncMs} ms), within which every instance sees a new key`,
    );
}

/** Refuses a production start in one line that names every secret it lacks, not only the first. */
function guardProduction(config: Config): void {
  if (!config.security.enabled)
    throw new ConfigError('Invalid configuration: security.enabled=false is refused when NODE_ENV=production');
  const missing: string[] = [];
  if (config.security.jwt.clientSecret === DEV_CLIENT_SECRET_HASH)
    missing.push('security.jwt.client-secret must be set when NODE_ENV=production (the development secret is refused)');
  // The id_token keys live in the store also beside a configured access key.
  if (config.mongodb.uri !== undefined && config.security.keys.encryptionSecret === undefined)
    missing.push(
      'security.keys.encryption-secret must be set when NODE_ENV=production and the key set lives in MongoDB (mongodb.uri: its id_token keys, and its access keys without security.signing-key)',
    );
  if (missing.length > 0) throw new ConfigError(`Invalid configuration: ${missing.join('; ')}`);
}

/**
 * The process's configuration: `CONFIG_FILE` (or ./application.properties if present), then the
 * environment, then `commandLine` keys; unknown keys are passed to `onWarning`.
 */
export function configFromProcess(
  env: NodeJS.ProcessEnv = process.env,
  extra: Pick<ConfigSources, 'commandLine' | 'onWarning'> = {},
): Config {
  const file = env['CONFIG_FILE'] ?? (existsSync('application.properties') ? 'application.properties' : undefined);
  return loadConfig({ env, ...extra, ...(file === undefined ? {} : { file }) }, env['NODE_ENV'] === 'production');
}

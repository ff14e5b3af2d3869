/**
 * The only reader of the environment and of `application.properties`. Sources, later ones winning:
 * built-in development defaults, the properties file, environment variables by relaxed binding
 * (`SECURITY_JWT_CLIENT_ID` sets `security.jwt.client-id`), the command line (`--server.port=9090`).
 * The result is typed and frozen. An unknown key in a file or on the command line is a warning
 * naming the closest known key.
 */
import { existsSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import { parse as parseProperties } from 'dot-properties';
import { z } from 'zod';
import { closestKey } from './config-args.ts';
import { BCRYPT_HASH, grantTypeName, SCOPE_TOKEN, withoutBcryptPrefix } from './security/formats.ts';
import { readClientsFile, type ClientRegistration } from './security/client-registry.ts';

/** BCrypt hash of the development client secret `troupe-secret`; refused in production. */
export const DEV_CLIENT_SECRET_HASH = '$2b$10$CtwJ021qq4KpCLS.FFEvWunroJJ73yOVmMkbon/8OFghalB.4a1q.';

export type ServiceName = 'secured' | 'employee' | 'userdata';
export type GrantType = 'password' | 'refresh_token';

const bool = z.enum(['true', 'false']).transform((v) => v === 'true');
const int = (min: number, max: number) =>
  z.string().regex(/^\d+$/, 'must be a whole number').transform(Number).pipe(z.number().int().min(min).max(max));
const list = <T extends string>(values: readonly [T, ...T[]]) =>
  z.string().transform((s, ctx) => {
    const items = s
      .split(',')
      .map((x) => x.trim())
      .filter((x) => x !== '');
    const bad = items.filter((x) => !(values as readonly string[]).includes(x));
    if (bad.length > 0)
      ctx.addIssue({ code: 'custom', message: `unknown value(s) ${bad.join(', ')}; allowed: ${values.join(', ')}` });
    return [...new Set(items)] as T[];
  });
const text = z.string().trim().min(1, 'must not be empty');

/** Every configuration key, its parser and its development default (unit and meaning inline). */
const schema = z.object({
  'server.host': text.default('127.0.0.1'), // listen address
  'server.port': int(0, 65535).default(8080), // TCP port; 0 picks a free one
  'server.max-body-bytes': int(1, 64 * 1024 * 1024).default(1024 * 1024), // request body limit, bytes
  'server.cors.allowed-origins': z
    .string()
    .default('')
    .transform((s) =>
      s
        .split(',')
        .map((x) => x.trim())
        .filter(Boolean),
    ),
  'server.shutdown-timeout-ms': int(0, 600_000).default(10_000), // in-flight requests get this long on SIGTERM
  // reverse proxies in front whose X-Forwarded-For entries name the client
  'server.trusted-proxies': int(0, 10).default(0),
  'server.request-timeout-ms': int(1, 3_600_000).default(30_000), // a request's headers and body must arrive within this, or 408
  // its headers within this, or 408; unset → the smaller of 10 s and the request timeout (Node's rule)
  'server.headers-timeout-ms': int(1, 3_600_000).optional(),
  // an idle kept-alive connection is closed after this; 0 never
  'server.keep-alive-timeout-ms': int(0, 600_000).default(5_000),
  'server.workers': z
    .string()
    .trim()
    .regex(/^(auto|\d{1,3})$/, 'must be a whole number from 1 to 256, or auto')
    .transform((s) => (s === 'auto' ? availableParallelism() : Number(s)))
    .pipe(z.number().int().min(1, 'must be at least 1').max(256, 'must be at most 256'))
    .default(1), // processes serving HTTP on one port (node:cluster); auto: one per core
  services: list(['secured', 'employee', 'userdata'] as const)
    .default(['secured', 'employee', 'userdata'])
    .transform((names): ReadonlySet<ServiceName> => new Set(names)),
  'security.enabled': bool.default(true), // false opens /app/** and /api/** (refused in production)
  'security.encoding-strength': z
    .enum(['256', '384', '512'])
    .transform((s) => Number(s) as 256 | 384 | 512)
    .default(256), // SHA-2 size of the JWT signature
  'security.signing-key': z.string().optional(), // MAC secret, RSA or EC key, inline or file:PATH; unset → the key set
  // keys that verify only (rotated out by configuration), comma-separated, each as signing-key takes it
  'security.previous-signing-keys': z.string().optional(),
  // seconds a new key of the set is published (JWKS) before it signs; the previous one retires then
  'security.keys.publish-ahead-seconds': int(0, 604_800).default(600),
  // seals the set's private keys at rest (AES-256-GCM, scrypt); unset → stored unencrypted (owner-only file)
  'security.keys.encryption-secret': z.string().min(16, 'must be at least 16 characters').optional(),
  'security.security-realm': text.default('troupe'),
  'security.jwt.client-id': text.default('troupe-client'),
  'security.jwt.client-secret': z
    .string()
    .trim()
    .regex(BCRYPT_HASH, 'must be a BCrypt hash ($2a$, $2b$ or $2y$)')
    .transform(withoutBcryptPrefix)
    .default(DEV_CLIENT_SECRET_HASH), // the client secret's BCrypt hash
  'security.jwt.grant-type': z
    .string()
    .transform((s) =>
      s
        .split(',')
        .map((name) => grantTypeName(name.trim()))
        .join(','),
    )
    .pipe(list(['password', 'refresh_token'] as const))
    .default(['password', 'refresh_token']),
  // JSON file of more clients (RFC 7591 fields); unset → only the security.jwt.* client. Read as the clients it registers
  'security.clients-file': z
    .string()
    .trim()
    .optional()
    .transform((path, ctx): readonly ClientRegistration[] => {
      if (path === undefined || path === '') return [];
      const read = readClientsFile(path);
      if (!('problems' in read)) return read;
      for (const problem of read.problems) ctx.addIssue({ code: 'custom', message: problem });
      return [];
    }),
  'security.jwt.scope-read': z.string().regex(SCOPE_TOKEN, 'must be a scope token').default('read'),
  'security.jwt.scope-write': z.string().regex(SCOPE_TOKEN, 'must be a scope token').default('write'),
  'security.jwt.resource-ids': text.default('troupe-api'),
  'security.jwt.issuer': text.optional(), // unset → http://HOST:PORT (see loadConfig)
  'security.jwt.access-token-validity': int(1, 31_536_000).default(3600), // seconds
  'security.jwt.refresh-token-validity': int(1, 315_360_000).default(2_592_000), // seconds
  // live logins (refresh-token families) per account; past it the least recently refreshed is ended
  'security.jwt.max-logins-per-user': int(1, 100_000).default(100),
  // access tokens of one login revoked one by one; past it revoking another ends the login
  'security.jwt.max-revoked-tokens-per-login': int(1, 100_000).default(100),
  // BCrypt cost of the passwords set through account administration (each step doubles the time)
  'security.password.bcrypt-cost': int(4, 15).default(10),
  'security.protect-api': bool.default(true), // /api/** needs a token with the read or write scope
  // failed logins per username per window
  'security.login-throttle.max-failures-per-user': int(1, 1_000_000).default(10),
  // failed logins per client address per window
  'security.login-throttle.max-failures-per-address': int(1, 1_000_000).default(50),
  'security.login-throttle.window-seconds': int(1, 86_400).default(600), // how long a failure counts
  // with MongoDB: how often an instance reads the revocations others made
  'security.revocation-sync-ms': int(1, 600_000).default(1000),
  'app.initial-data': text.default('data/initial-data.json'), // roles and users loaded at start-up
  'app.list-all.include-password-hash': bool.default(false), // true: /app/listAll shows each user's BCrypt hash, as the original service did
  'data.dir': text.default('./data').transform((dir) => resolve(dir)), // where the SQLite files (with the signing-key set) live
  'data.sqlite.synchronous': z.enum(['FULL', 'NORMAL']).default('FULL'), // FULL: a commit survives power loss too
  // opening the database retries on SQLITE_BUSY (another process holds a lock) for this long, ms
  'data.sqlite.open-timeout-ms': int(0, 600_000).default(30_000),
  'mongodb.uri': z
    .string()
    .trim()
    .optional()
    .transform((uri) => uri || undefined), // set → every store in MongoDB (several machines can serve)
  // with MongoDB: the longest one store operation may take (connecting included) before it answers 503, ms
  'mongodb.operation-timeout-ms': int(100, 600_000).default(5000),
  'actors.ask-timeout-ms': int(1, 600_000).default(10_000), // an actor silent this long → 503
  // asks to an actor with this many waiting messages → 503 at once
  'actors.mailbox-limit': int(1, 1_000_000).default(1000),
  'actors.activity.idle-ms': int(1, 2_147_483_647).default(60_000), // a user's ActivityActor stops after this long idle, ms
  // ActivityActors alive at once; spawning one more stops the least recently used idle one
  'actors.activity.max-live': int(1, 1_000_000).default(1000),
  // set → /health, /ready and /metrics are served only on this port (0 picks a free one), not the main one
  'management.port': int(0, 65535).optional(),
  'management.host': text.default('127.0.0.1'), // the management port's listen address (loopback)
  'logging.level': z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
});

export const CONFIG_KEYS = Object.keys(schema.shape) as readonly (keyof typeof schema.shape)[];

/** `max-body-bytes` → `maxBodyBytes`. */
type Camel<S extends string> = S extends `${infer Head}-${infer Tail}` ? `${Head}${Capitalize<Camel<Tail>>}` : S;
/** `server.cors.allowed-origins` with its value → `{ server: { cors: { allowedOrigins: V } } }`. */
type Nest<K extends string, V> = K extends `${infer Head}.${infer Rest}`
  ? { readonly [P in Camel<Head>]: Nest<Rest, V> }
  : { readonly [P in Camel<K>]: V };
type Intersect<U> = (U extends unknown ? (u: U) => void : never) extends (i: infer I) => void ? I : never;
/** Flattens intersections for readable hovers and errors. */
type Simplify<T> =
  T extends ReadonlySet<unknown>
    ? T
    : T extends readonly (infer E)[]
      ? readonly E[]
      : T extends object
        ? { readonly [K in keyof T]: Simplify<T[K]> }
        : T;
type Parsed = z.infer<typeof schema>;
type Resolved = Omit<Parsed, 'security.jwt.issuer' | 'server.headers-timeout-ms'> & {
  readonly 'security.jwt.issuer': string;
  readonly 'server.headers-timeout-ms': number;
};

/**
 * The typed, frozen configuration every other module receives as a parameter: each key of the
 * schema becomes a path of camel-cased segments (`actors.activity.idle-ms` →
 * `config.actors.activity.idleMs`), with the value its parser gives; the key is written once.
 */
export type Config = Simplify<
  { readonly production: boolean } & Intersect<
    { [K in keyof Resolved & string]: Nest<K, Resolved[K]> }[keyof Resolved & string]
  >
>;

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
  /** Keys given on the command line (see `config-args.ts`), applied last. */
  readonly commandLine?: Readonly<Record<string, string>>;
  /** Told of each unknown key in the file, the properties or the command line; default: ignored. */
  readonly onWarning?: (message: string) => void;
}

const envName = (key: string): string => key.toUpperCase().replace(/[.-]/g, '_');
const SECRET_KEYS = new Set([
  'security.signing-key',
  'security.previous-signing-keys',
  'security.keys.encryption-secret',
  'security.jwt.client-secret',
  'mongodb.uri',
]);

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
    const value = env[envName(key)];
    if (value !== undefined) raw[key] = value;
  }
  take(raw, sources.commandLine ?? {}, 'on the command line', sources);
  return raw;
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

function parse(raw: Record<string, string>): z.infer<typeof schema> {
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
  const v = parse(collect(sources));
  const headersTimeout = v['server.headers-timeout-ms'] ?? Math.min(10_000, v['server.request-timeout-ms']);
  if (headersTimeout > v['server.request-timeout-ms']) {
    throw new ConfigError(
      `Invalid configuration: server.headers-timeout-ms: must not exceed server.request-timeout-ms (${v['server.request-timeout-ms']})`,
    );
  }
  const resolved: Resolved = {
    ...v,
    'server.headers-timeout-ms': headersTimeout,
    'security.jwt.issuer': v['security.jwt.issuer'] ?? `http://${v['server.host']}:${v['server.port']}`,
  };
  if (v['security.clients-file'].some((c) => c.clientId === v['security.jwt.client-id']))
    throw new ConfigError(
      `Invalid configuration: security.clients-file: client_id ${v['security.jwt.client-id']} is security.jwt.client-id's`,
    );
  const config = { production, ...nest(resolved) } as Config;
  if (production) guardProduction(config);
  if (config.security.previousSigningKeys !== undefined && config.security.signingKey === undefined)
    throw new ConfigError(
      'Invalid configuration: security.previous-signing-keys: needs security.signing-key (without it the key set in the store keeps its own previous keys)',
    );
  guardPublishAhead(config);
  return deepFreeze(config);
}

/** `{ 'a.b-c': 1 }` → `{ a: { bC: 1 } }`: the object {@link Config} describes, every key present (unset ones undefined). */
function nest(flat: Resolved): Record<string, unknown> {
  const root: Record<string, unknown> = {};
  for (const key of CONFIG_KEYS) {
    const value: unknown = flat[key];
    const path = key.split('.').map((segment) => segment.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase()));
    const last = path.pop() as string;
    let node = root;
    for (const segment of path) node = (node[segment] ??= {}) as Record<string, unknown>;
    node[last] = value;
  }
  return root;
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

function guardProduction(config: Config): void {
  if (!config.security.enabled)
    throw new ConfigError('Invalid configuration: security.enabled=false is refused when NODE_ENV=production');
  if (
    config.security.signingKey === undefined &&
    config.mongodb.uri !== undefined &&
    config.security.keys.encryptionSecret === undefined
  )
    throw new ConfigError(
      'Invalid configuration: security.keys.encryption-secret must be set when NODE_ENV=production and the key set lives in MongoDB (mongodb.uri without security.signing-key)',
    );
  if (config.security.jwt.clientSecret === DEV_CLIENT_SECRET_HASH)
    throw new ConfigError(
      'Invalid configuration: security.jwt.client-secret must be set when NODE_ENV=production (the development secret is refused)',
    );
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !(value instanceof Set) && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
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

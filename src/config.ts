/**
 * The only reader of the environment and of `application.properties`. Sources, later ones winning:
 * built-in development defaults, the properties file, environment variables by relaxed binding
 * (`SECURITY_JWT_CLIENT_ID` sets `security.jwt.client-id`). The result is typed and frozen.
 */
import { existsSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import { parse as parseProperties } from 'dot-properties';
import { z } from 'zod';

/** BCrypt hash of the development client secret `troupe-secret`; refused in production. */
export const DEV_CLIENT_SECRET_HASH = '$2b$10$CtwJ021qq4KpCLS.FFEvWunroJJ73yOVmMkbon/8OFghalB.4a1q.';

export type ServiceName = 'secured' | 'employee' | 'userdata';
export type GrantType = 'password' | 'refresh_token';

const bool = z.enum(['true', 'false']).transform((v) => v === 'true');
const int = (min: number, max: number) => z.string().regex(/^\d+$/, 'must be a whole number')
  .transform(Number).pipe(z.number().int().min(min).max(max));
const list = <T extends string>(values: readonly [T, ...T[]]) => z.string().transform((s, ctx) => {
  const items = s.split(',').map((x) => x.trim()).filter((x) => x !== '');
  const bad = items.filter((x) => !(values as readonly string[]).includes(x));
  if (bad.length > 0) ctx.addIssue({ code: 'custom', message: `unknown value(s) ${bad.join(', ')}; allowed: ${values.join(', ')}` });
  return [...new Set(items)] as T[];
});
const text = z.string().trim().min(1, 'must not be empty');

/** Every configuration key, its parser and its development default (unit and meaning inline). */
const schema = z.object({
  'server.host': text.default('127.0.0.1'), // listen address
  'server.port': int(0, 65535).default(8080), // TCP port; 0 picks a free one
  'server.max-body-bytes': int(1, 64 * 1024 * 1024).default(1024 * 1024), // request body limit, bytes
  'server.cors.allowed-origins': z.string().default('').transform((s) => s.split(',').map((x) => x.trim()).filter(Boolean)),
  'server.shutdown-timeout-ms': int(0, 600_000).default(10_000), // in-flight requests get this long on SIGTERM
  'server.trusted-proxies': int(0, 10).default(0), // reverse proxies in front whose X-Forwarded-For entries name the client
  'server.request-timeout-ms': int(1, 3_600_000).default(30_000), // a request's headers and body must arrive within this, or 408
  'server.headers-timeout-ms': int(1, 3_600_000).default(10_000), // its headers within this (at most the request timeout), or 408
  'server.keep-alive-timeout-ms': int(0, 600_000).default(5_000), // an idle kept-alive connection is closed after this; 0 never
  'server.workers': z.string().trim().regex(/^(auto|\d{1,3})$/, 'must be a whole number from 1 to 256, or auto')
    .transform((s) => (s === 'auto' ? availableParallelism() : Number(s))).pipe(z.number().int().min(1, 'must be at least 1').max(256, 'must be at most 256'))
    .default(1), // processes serving HTTP on one port (node:cluster); auto: one per core
  services: list(['secured', 'employee', 'userdata'] as const).default(['secured', 'employee', 'userdata']),
  'security.enabled': bool.default(true), // false opens /app/** and /api/** (refused in production)
  'security.encoding-strength': z.enum(['256', '384', '512']).transform(Number).default(256), // SHA-2 size of the JWT signature
  'security.signing-key': z.string().optional(), // MAC secret or RSA key, inline or file:PATH; unset → generated
  'security.security-realm': text.default('troupe'),
  'security.jwt.client-id': text.default('troupe-client'),
  'security.jwt.client-secret': z.string().trim().regex(/^(\{bcrypt\})?\$2[aby]\$\d\d\$[./A-Za-z0-9]{53}$/, 'must be a BCrypt hash ($2a$, $2b$ or $2y$)').default(DEV_CLIENT_SECRET_HASH),
  'security.jwt.grant-type': z.string().transform((s) => s.replaceAll('refresh-token', 'refresh_token'))
    .pipe(list(['password', 'refresh_token'] as const)).default(['password', 'refresh_token']),
  'security.jwt.scope-read': z.string().regex(/^[\x21\x23-\x5B\x5D-\x7E]+$/, 'must be a scope token').default('read'),
  'security.jwt.scope-write': z.string().regex(/^[\x21\x23-\x5B\x5D-\x7E]+$/, 'must be a scope token').default('write'),
  'security.jwt.resource-ids': text.default('troupe-api'),
  'security.jwt.issuer': text.optional(), // unset → http://HOST:PORT
  'security.jwt.access-token-validity': int(1, 31_536_000).default(3600), // seconds
  'security.jwt.refresh-token-validity': int(1, 315_360_000).default(2_592_000), // seconds
  'security.protect-api': bool.default(true), // /api/** needs a token with the read or write scope
  'security.login-throttle.max-failures-per-user': int(1, 1_000_000).default(10), // failed logins per username per window
  'security.login-throttle.max-failures-per-address': int(1, 1_000_000).default(50), // failed logins per client address per window
  'security.login-throttle.window-seconds': int(1, 86_400).default(600), // how long a failure counts
  'security.revocation-sync-ms': int(1, 600_000).default(1000), // with MongoDB: how often an instance reads the revocations others made
  'app.initial-data': text.default('data/initial-data.json'), // roles and users loaded at start-up
  'app.list-all.include-password-hash': bool.default(false), // true: /app/listAll shows each user's BCrypt hash, as the seed did
  'data.dir': text.default('./data'), // where SQLite files and the generated key live
  'data.sqlite.synchronous': z.enum(['FULL', 'NORMAL']).default('FULL'), // FULL: a commit survives power loss too
  'mongodb.uri': z.string().trim().optional(), // set → every store in MongoDB (several machines can serve)
  'actors.ask-timeout-ms': int(1, 600_000).default(10_000), // an actor silent this long → 503
  'actors.mailbox-limit': int(1, 1_000_000).default(1000), // asks to an actor with this many waiting messages → 503 at once
  'actors.activity.idle-ms': int(1, 2_147_483_647).default(60_000), // a user's ActivityActor stops after this long idle, ms
  'logging.level': z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
});

export const CONFIG_KEYS = Object.keys(schema.shape) as readonly (keyof typeof schema.shape)[];

/** The typed, frozen configuration every other module receives as a parameter. */
export interface Config {
  readonly production: boolean;
  readonly server: { readonly host: string; readonly port: number; readonly maxBodyBytes: number; readonly corsAllowedOrigins: readonly string[]; readonly shutdownTimeoutMs: number;
    /** How many reverse proxies append to X-Forwarded-For; 0: the socket's address is the client's. */
    readonly trustedProxies: number;
    /** Milliseconds for a whole request (headers and body) to arrive; for its headers; an idle kept-alive connection. */
    readonly requestTimeoutMs: number; readonly headersTimeoutMs: number; readonly keepAliveTimeoutMs: number;
    /** Worker processes serving one port; 1: this process serves alone. */
    readonly workers: number;
  };
  readonly services: ReadonlySet<ServiceName>;
  readonly security: {
    readonly enabled: boolean;
    readonly encodingStrength: 256 | 384 | 512;
    /** Undefined: a key is generated into `data.dir` on first start (development only). */
    readonly signingKey: string | undefined;
    readonly realm: string;
    readonly protectApi: boolean;
    readonly loginThrottle: { readonly maxFailuresPerUser: number; readonly maxFailuresPerAddress: number; readonly windowSeconds: number };
    /** With MongoDB, the longest a revocation made by another instance goes unnoticed here, ms. */
    readonly revocationSyncMs: number;
    readonly jwt: {
      readonly clientId: string; readonly clientSecretHash: string; readonly grantTypes: readonly GrantType[];
      readonly scopeRead: string; readonly scopeWrite: string; readonly resourceId: string; readonly issuer: string;
      /** Seconds. */ readonly accessTokenValidity: number;
      /** Seconds. */ readonly refreshTokenValidity: number;
    };
  };
  readonly app: { readonly initialData: string; readonly listAllIncludePasswordHash: boolean };
  readonly data: { readonly dir: string; readonly synchronous: 'FULL' | 'NORMAL' };
  readonly mongodb: { readonly uri: string | undefined };
  readonly actors: {
    readonly askTimeoutMs: number;
    /** Waiting messages past which asks to a top-level actor are refused (503). */
    readonly mailboxLimit: number;
  };
  /** Milliseconds a user's ActivityActor stays idle before it stops. */
  readonly activity: { readonly idleMs: number };
  readonly logging: { readonly level: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent' };
}

/** Bad configuration: the message is one line naming the key, and never echoes a secret. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

export interface ConfigSources {
  /** Environment variables (relaxed binding); defaults to none. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Keys as in application.properties, applied after the file and before the environment. */
  readonly properties?: Readonly<Record<string, string>>;
  /** Path of an application.properties file to read. */
  readonly file?: string;
}

const envName = (key: string): string => key.toUpperCase().replace(/[.-]/g, '_');
const SECRET_KEYS = new Set(['security.signing-key', 'security.jwt.client-secret', 'mongodb.uri']);

function collect(sources: ConfigSources): Record<string, string> {
  const raw: Record<string, string> = {};
  if (sources.file !== undefined) Object.assign(raw, readPropertiesFile(sources.file));
  Object.assign(raw, sources.properties ?? {});
  const env = sources.env ?? {};
  if (env['PORT'] !== undefined) raw['server.port'] = env['PORT'];
  for (const key of CONFIG_KEYS) {
    const value = env[envName(key)];
    if (value !== undefined) raw[key] = value;
  }
  return raw;
}

function readPropertiesFile(path: string): Record<string, string> {
  try {
    return parseProperties(readFileSync(path, 'utf8'), false) as Record<string, string>;
  } catch (error) {
    throw new ConfigError(`Invalid configuration: cannot read ${path} (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
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
  if (v['server.headers-timeout-ms'] > v['server.request-timeout-ms']) {
    throw new ConfigError(`Invalid configuration: server.headers-timeout-ms: must not exceed server.request-timeout-ms (${v['server.request-timeout-ms']})`);
  }
  const host = v['server.host'];
  const config: Config = {
    production,
    server: { host, port: v['server.port'], maxBodyBytes: v['server.max-body-bytes'], corsAllowedOrigins: v['server.cors.allowed-origins'], shutdownTimeoutMs: v['server.shutdown-timeout-ms'], trustedProxies: v['server.trusted-proxies'],
      requestTimeoutMs: v['server.request-timeout-ms'], headersTimeoutMs: v['server.headers-timeout-ms'], keepAliveTimeoutMs: v['server.keep-alive-timeout-ms'], workers: v['server.workers'] },
    services: new Set(v.services),
    security: {
      enabled: v['security.enabled'],
      encodingStrength: v['security.encoding-strength'] as 256 | 384 | 512,
      signingKey: v['security.signing-key'],
      realm: v['security.security-realm'],
      protectApi: v['security.protect-api'],
      loginThrottle: {
        maxFailuresPerUser: v['security.login-throttle.max-failures-per-user'],
        maxFailuresPerAddress: v['security.login-throttle.max-failures-per-address'],
        windowSeconds: v['security.login-throttle.window-seconds'],
      },
      revocationSyncMs: v['security.revocation-sync-ms'],
      jwt: {
        clientId: v['security.jwt.client-id'], clientSecretHash: v['security.jwt.client-secret'].replace(/^\{bcrypt\}/, ''),
        grantTypes: v['security.jwt.grant-type'], scopeRead: v['security.jwt.scope-read'], scopeWrite: v['security.jwt.scope-write'],
        resourceId: v['security.jwt.resource-ids'], issuer: v['security.jwt.issuer'] ?? `http://${host}:${v['server.port']}`,
        accessTokenValidity: v['security.jwt.access-token-validity'], refreshTokenValidity: v['security.jwt.refresh-token-validity'],
      },
    },
    app: { initialData: v['app.initial-data'], listAllIncludePasswordHash: v['app.list-all.include-password-hash'] },
    data: { dir: resolve(v['data.dir']), synchronous: v['data.sqlite.synchronous'] },
    mongodb: { uri: v['mongodb.uri'] || undefined },
    actors: { askTimeoutMs: v['actors.ask-timeout-ms'], mailboxLimit: v['actors.mailbox-limit'] },
    activity: { idleMs: v['actors.activity.idle-ms'] },
    logging: { level: v['logging.level'] },
  };
  if (production) guardProduction(config);
  if (config.mongodb.uri !== undefined && config.security.signingKey === undefined && sources.env?.['NODE_ENV'] !== 'development') {
    throw new ConfigError('Invalid configuration: security.signing-key must be set when mongodb.uri is set (a key generated on each machine would refuse the tokens of the others); only NODE_ENV=development allows a generated key');
  }
  return deepFreeze(config);
}

function guardProduction(config: Config): void {
  if (!config.security.enabled) throw new ConfigError('Invalid configuration: security.enabled=false is refused when NODE_ENV=production');
  if (config.security.signingKey === undefined) throw new ConfigError('Invalid configuration: security.signing-key must be set when NODE_ENV=production (the generated development key is refused)');
  if (config.security.jwt.clientSecretHash === DEV_CLIENT_SECRET_HASH) throw new ConfigError('Invalid configuration: security.jwt.client-secret must be set when NODE_ENV=production (the development secret is refused)');
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}

/** The process's configuration: `CONFIG_FILE` (or ./application.properties if present), then the environment. */
export function configFromProcess(env: NodeJS.ProcessEnv = process.env): Config {
  const file = env['CONFIG_FILE'] ?? (existsSync('application.properties') ? 'application.properties' : undefined);
  return loadConfig({ env, ...(file === undefined ? {} : { file }) }, env['NODE_ENV'] === 'production');
}

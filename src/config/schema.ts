/**
 * The configuration keys and their parsers: each value is checked here on its own; the rules across
 * keys, and the reading of the sources, are `../config.ts`'s.
 */
import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import { z } from 'zod';
import { BCRYPT_HASH, grantTypeName, SCOPE_TOKEN, withoutBcryptPrefix } from '../security/formats.ts';
import { readClientsFile, type ClientRegistration } from '../security/client-registry.ts';

/** BCrypt hash of the development client secret `troupe-secret`; refused in production. */
export const DEV_CLIENT_SECRET_HASH = '$2b$10$CtwJ021qq4KpCLS.FFEvWunroJJ73yOVmMkbon/8OFghalB.4a1q.';

export type ServiceName = 'secured' | 'employee' | 'userdata';
export type GrantType = 'password' | 'refresh_token' | 'authorization_code';

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
/** Unset when absent or empty (an environment variable set to nothing). */
const optionalText = z
  .string()
  .trim()
  .optional()
  .transform((s) => s || undefined);
const LOGO_FILE = /\.(?:png|svg|jpe?g|webp)$/i;

/** Every configuration key, its parser and its development default (unit and meaning inline). */
export const schema = z.object({
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
  // on SIGTERM the listener stays open this long at least, answering 503; at most the shutdown timeout
  'server.drain-window-ms': int(0, 600_000).default(500),
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
    .pipe(list(['password', 'refresh_token', 'authorization_code'] as const))
    // authorization_code: the code flow of /docs's Authorize, back to <issuer>/docs/oauth2-redirect.html
    .default(['password', 'refresh_token', 'authorization_code']),
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
  'security.jwt.issuer': text.optional(), // unset → http://HOST:PORT of the data directory's first start (composition/issuer.ts)
  'security.jwt.access-token-validity': int(1, 31_536_000).default(3600), // seconds
  'security.jwt.refresh-token-validity': int(1, 315_360_000).default(2_592_000), // seconds
  // live logins per account; past it the least recently refreshed is ended
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
  // the sign-in, consent and error pages of /oauth/authorize (docs/security.md, "Sign-in and consent pages")
  'security.sign-in.product-name': text.default('troupe'), // shown at the top of each page
  // a PNG, SVG, JPEG or WebP file shown beside the product name, served at /oauth/sign-in/logo
  'security.sign-in.logo': optionalText
    .refine((path) => path === undefined || LOGO_FILE.test(path), 'must be a .png, .svg, .jpg, .jpeg or .webp file')
    .transform((path) => (path === undefined ? undefined : resolve(path))),
  // the buttons' colour; the text on them is white or near-black, whichever contrasts more
  'security.sign-in.primary-color': z
    .string()
    .trim()
    .regex(/^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/, 'must be a hex colour, #rgb or #rrggbb')
    .default('#1f5fd1'),
  // a link to help shown on each page (http or https)
  'security.sign-in.support-url': optionalText.refine(
    (url) => url === undefined || (/^https?:\/\/[^\s/?#]+/i.test(url) && URL.canParse(url)),
    'must be an http or https URL',
  ),
  // how long a sign-in at /oauth/authorize lets the browser authorize again without the password, seconds
  'security.sign-in.session-max-age-seconds': int(60, 2_592_000).default(28_800),
  // a folder whose files replace the default theme's (templates, style.css, messages/<language>.json)
  'security.sign-in.theme': optionalText.transform((dir) => (dir === undefined ? undefined : resolve(dir))),
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
  // asks to an actor with this many messages waiting or running beside its mailbox → 503 at once
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

export type Parsed = z.infer<typeof schema>;

/** Keys whose value a configuration error never echoes. */
export const SECRET_KEYS = new Set([
  'security.signing-key',
  'security.previous-signing-keys',
  'security.keys.encryption-secret',
  'security.jwt.client-secret',
  'mongodb.uri',
]);

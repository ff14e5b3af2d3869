/**
 * Property-based fuzzing against a real server: for every route, generated paths, query strings,
 * bodies (wrong types, unicode, NUL, lone surrogates, huge and deeply nested JSON, duplicate and
 * prototype-polluting keys, malformed text) and headers get a 4xx or a success: never a 5xx, never
 * a hang (each request is bounded by a timeout); a request that fails changes no stored row, and one
 * that succeeds changes no table but those its route writes.
 * A failure prints fast-check's seed and path; replay it with FUZZ_SEED=<seed> FUZZ_PATH=<path>.
 */
import fc from 'fast-check';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { routesOf } from '../../http/app.ts';
import { openReader, SERVICE_TABLES } from '../helpers/faults.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { SOAK } from '../helpers/soak.ts';
import { spellings } from '../helpers/spellings.ts';
import { basic, login } from '../helpers/tokens.ts';
import { send } from '../helpers/user-data.ts';
import { headerValue, hostileForm, hostileJson, hostileQuery, hostileString, nearlyValid, rawJson } from './hostile.ts';

const RUNS_PER_ROUTE = SOAK ? 1000 : 30;
const REQUEST_TIMEOUT_MS = 5000;
const CONTENT_TYPES = [
  'application/json',
  'application/json; charset=utf-8',
  'application/x-www-form-urlencoded',
  'text/plain',
  'application/merge-patch+json',
  'application/json; charset=latin1',
  'multipart/form-data; boundary=x',
  '*/*',
  'json',
  '',
];

interface Ctx {
  server: TestServer;
  token: string;
  readToken: string;
  known: string[];
  /** The id of an account made for the account routes. */
  account: string;
}
const ctx = {} as Ctx;
const t = suite('reliability: fuzzed requests on every route', ctx);

t.before(async () => {
  // The throttles out of reach: wrong secrets are a third of the OAuth requests here, and a 429 for
  // every later one would stop them from reaching the code behind it.
  ctx.server = await startTestServer({
    'security.login-throttle.max-failures-per-user': '1000000',
    'security.login-throttle.max-failures-per-address': '1000000',
  });
  ctx.token = (await login(ctx.server.url)).access_token;
  ctx.readToken = (await login(ctx.server.url, undefined, 'read')).access_token;
  const api = (method: string, path: string, json: unknown) =>
    send(ctx.server.url, method, path, { token: ctx.token, json });
  ctx.account = String(
    (
      (await api('POST', '/app/admin/users', { username: 'fixture', password: 'fixture-password', roles: ['USER'] }))
        .body as { id: number }
    ).id,
  );
  ctx.known = [];
  for (const i of [1, 2, 3]) {
    ctx.known.push(
      String(
        (
          (await api('POST', '/api/employee/create', { name: `Fixture ${i}`, dateOfBirth: '1980-01-0' + i })).body as {
            id: string;
          }
        ).id,
      ),
    );
    ctx.known.push(
      String(
        (
          (await api('POST', '/api/user', { name: `Fixture ${i}`, email: `fixture${i}@example.com` })).body as {
            id: string;
          }
        ).id,
      ),
    );
  }
});
t.after(async () => ctx.server?.close());

/** Every stored row of every table, one string per table. */
function snapshot(): string[] {
  const db = openReader(ctx.server.dataDir);
  try {
    return SERVICE_TABLES.map((table) => JSON.stringify(db.prepare(`select * from ${table} order by 1`).all()));
  } finally {
    db.close();
  }
}

/** The tables that differ between two snapshots. */
const changed = (before: readonly string[], after: readonly string[]): string[] =>
  SERVICE_TABLES.filter((_, i) => before[i] !== after[i]);

interface Req {
  method: string;
  path: string;
  body: string | undefined;
  contentType: string | undefined;
  auth: string | undefined;
  ifMatch: string | null;
  requestId: string | null;
}

function headersOf(req: Req): Record<string, string> {
  const headers: Record<string, string> = {};
  if (req.contentType !== undefined) headers['Content-Type'] = req.contentType;
  if (req.auth !== undefined) headers['Authorization'] = req.auth;
  if (req.ifMatch !== null) headers['If-Match'] = req.ifMatch;
  if (req.requestId !== null) headers['X-Request-Id'] = req.requestId;
  return headers;
}

/** Whether the request carries credentials that could pass (a good token or client secret). */
const credentialed = (req: Req): boolean =>
  [`Bearer ${ctx.token}`, `bearer ${ctx.token}`, `Bearer ${ctx.readToken}`, basic()].includes(req.auth ?? '') ||
  (req.body ?? '').includes('troupe-secret');

/**
 * One request: never a 5xx or a hang; a failure leaves every row as it was, a success changes no
 * table but those its route writes; error bodies are JSON. Without credentials, a route that
 * needs them never answers 2xx, whatever the spelling of its path.
 */
async function check(req: Req, writes: readonly string[], secured = false): Promise<void> {
  const before = snapshot();
  const res = await fetch(`${ctx.server.url}${req.path}`, {
    method: req.method,
    headers: headersOf(req),
    signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    ...(req.body === undefined ? {} : { body: req.body }),
  });
  const text = await res.text();
  if (res.status >= 500) throw new Error(`${req.method} ${req.path} → ${res.status} ${text.slice(0, 300)}`);
  if (secured && res.status < 300 && !credentialed(req))
    throw new Error(`${req.method} ${req.path} → ${res.status} without credentials`);
  const tables = changed(before, snapshot());
  if (res.status < 400) {
    const stray = tables.filter((table) => !writes.includes(table));
    if (stray.length > 0)
      throw new Error(`${req.method} ${req.path} → ${res.status}, yet it changed ${stray.join(', ')}`);
    return;
  }
  if (tables.length > 0)
    throw new Error(`${req.method} ${req.path} → ${res.status}, yet stored rows changed in ${tables.join(', ')}`);
  if (/json/.test(res.headers.get('content-type') ?? '')) JSON.parse(text);
}

type Auth = 'bearer' | 'basic' | 'none';

function authOf(kind: Auth): fc.Arbitrary<string | undefined> {
  const garbage = fc.oneof(
    headerValue,
    fc.constantFrom(
      'Bearer',
      'Bearer ',
      'Basic',
      'Basic !!!',
      `Bearer ${ctx.token}, Bearer ${ctx.token}`,
      `Bearer ${ctx.token.slice(0, -3)}abc`,
    ),
    fc.constant(undefined),
  );
  if (kind === 'none') return fc.oneof(fc.constant(undefined), garbage);
  const good =
    kind === 'bearer'
      ? fc.constantFrom(`Bearer ${ctx.token}`, `bearer ${ctx.token}`, `Bearer ${ctx.readToken}`)
      : fc.constantFrom(basic(), basic('troupe-client', 'wrong'));
  return fc.oneof({ weight: 6, arbitrary: good }, { weight: 1, arbitrary: garbage });
}

function jsonBodyOf(fields: readonly string[]): fc.Arbitrary<string | undefined> {
  return fc.oneof(
    { weight: 4, arbitrary: nearlyValid(fields, ctx.known).map((v) => JSON.stringify(v)) },
    { weight: 2, arbitrary: hostileJson(ctx.known).map((v) => JSON.stringify(v) ?? '') },
    { weight: 2, arbitrary: rawJson(ctx.known) },
    { weight: 1, arbitrary: fc.constant(undefined) },
  );
}

function queryOf(fields: readonly string[]): fc.Arbitrary<string> {
  const pairs = nearlyValid(fields, ctx.known).map((v) =>
    new URLSearchParams(
      Object.entries(v).map(([k, x]): [string, string] => [k, typeof x === 'string' ? x : (JSON.stringify(x) ?? '')]),
    ).toString(),
  );
  return fc.oneof(pairs, hostileQuery(ctx.known));
}

/** Percent-encodes a path segment; a lone surrogate (which `encodeURIComponent` refuses) becomes invalid UTF-8. */
const encodeSegment = (s: string): string =>
  s
    .split(/(\p{Cs})/u)
    .map((part) => (/^\p{Cs}$/u.test(part) ? '%ED%A0%80' : encodeURIComponent(part)))
    .join('');

/**
 * Valid bodies with unusual but legal values, mixed into a write route's bodies so that successes
 * happen too (and the tables they change are checked). Known ids are employees at even and users
 * at odd positions of `ctx.known`.
 */
function validBodies() {
  const name = fc.string({ minLength: 1, maxLength: 60, unit: 'grapheme' }).filter((n) => n.trim().length > 0);
  const born = fc
    .date({ min: new Date('1900-01-01'), max: new Date('2020-12-31'), noInvalidDate: true })
    .map((d) => d.toISOString().slice(0, 10));
  const known = (parity: number) => fc.constantFrom(...ctx.known.filter((_, i) => i % 2 === parity));
  const json = <T>(a: fc.Arbitrary<T>) => a.map((v) => JSON.stringify(v));
  return {
    employee: json(fc.record({ name, dateOfBirth: born })),
    employeeChange: json(fc.record({ name }, { requiredKeys: [] })),
    user: json(fc.record({ name, email: fc.uuid().map((u) => `${u}@example.com`) })),
    userChange: json(fc.record({ id: known(1), name })),
    activity: json(
      fc.record({
        userId: known(1),
        type: fc.constantFrom('LOGIN', 'PASSWORD_CHANGED', 'A1_B2'),
        detail: fc.dictionary(fc.string(), fc.string(), { maxKeys: 3 }),
      }),
    ),
  };
}

/** A route's bodies with valid ones mixed in. */
const orValid = (
  bodies: fc.Arbitrary<string | undefined>,
  valid: fc.Arbitrary<string>,
): fc.Arbitrary<string | undefined> => fc.oneof({ weight: 1, arbitrary: valid }, { weight: 2, arbitrary: bodies });

interface Route {
  /** The registered routes (`METHOD /template`, as Koa lists them) these requests aim at. */
  covers: readonly string[];
  /** The tables a successful request may change. */
  writes?: readonly string[];
  method: string;
  path: fc.Arbitrary<string>;
  body: fc.Arbitrary<string | undefined>;
  type: string | undefined;
  auth: Auth;
}

function routes(): Route[] {
  const none = fc.constant(undefined);
  const form = fc.oneof(hostileForm(ctx.known), none);
  const json = 'application/json';
  const formType = 'application/x-www-form-urlencoded';
  const segment = fc.oneof(
    fc.constantFrom(...ctx.known),
    hostileString(ctx.known).map(encodeSegment),
    fc.constantFrom('%', '%E0%A4%A', '..', '%2e%2e', 'search', 'update', 'x'.repeat(5000)),
  );
  const q = (path: string, fields: readonly string[]) => queryOf(fields).map((query) => `${path}?${query}`);
  const valid = validBodies();
  const get = (path: string, auth: Auth = 'none'): Route => ({
    covers: [`GET ${path}`],
    method: 'GET',
    path: q(path, ['x']),
    body: none,
    type: undefined,
    auth,
  });
  const asset = fc.oneof(
    fc.constantFrom(
      'swagger-ui.css',
      'init.js',
      'oauth2-redirect.js',
      'constructor',
      '__proto__',
      'toString',
      'package.json',
      '..%2Fpackage.json',
    ),
    segment,
  );
  return [
    {
      covers: ['POST /oauth/token'],
      writes: ['refresh_tokens'],
      method: 'POST',
      path: q('/oauth/token', ['grant_type']),
      body: form,
      type: formType,
      auth: 'basic',
    },
    {
      covers: ['GET /oauth/authorize'],
      method: 'GET',
      path: q('/oauth/authorize', ['response_type', 'client_id', 'redirect_uri', 'code_challenge', 'state']),
      body: none,
      type: undefined,
      auth: 'none',
    },
    {
      covers: ['POST /oauth/authorize'],
      method: 'POST',
      path: fc.constant('/oauth/authorize'),
      body: form,
      type: formType,
      auth: 'none',
    },
    {
      covers: ['POST /oauth/authorize/consent'],
      method: 'POST',
      path: fc.constant('/oauth/authorize/consent'),
      body: form,
      type: formType,
      auth: 'none',
    },
    {
      covers: ['GET /oauth/logout'],
      method: 'GET',
      path: q('/oauth/logout', ['id_token_hint', 'client_id', 'post_logout_redirect_uri', 'state', 'ui_locales']),
      body: none,
      type: undefined,
      auth: 'none',
    },
    {
      covers: ['GET /oauth/account'],
      method: 'GET',
      path: q('/oauth/account', ['ui_locales']),
      body: none,
      type: undefined,
      auth: 'none',
    },
    {
      covers: ['POST /oauth/logout'],
      method: 'POST',
      path: fc.constant('/oauth/logout'),
      body: form,
      type: formType,
      auth: 'none',
    },
    {
      covers: ['POST /oauth/account', 'POST /oauth/account/withdraw', 'POST /oauth/account/sign-out'],
      method: 'POST',
      path: fc.constantFrom('/oauth/account', '/oauth/account/withdraw', '/oauth/account/sign-out'),
      body: form,
      type: formType,
      auth: 'none',
    },
    {
      covers: ['POST /oauth/revoke'],
      writes: ['refresh_tokens', 'revocations'],
      method: 'POST',
      path: fc.constant('/oauth/revoke'),
      body: form,
      type: formType,
      auth: 'basic',
    },
    {
      covers: ['POST /oauth/introspect'],
      method: 'POST',
      path: fc.constant('/oauth/introspect'),
      body: form,
      type: formType,
      auth: 'basic',
    },
    {
      covers: ['POST /oauth/check_token'],
      method: 'POST',
      path: q('/oauth/check_token', ['token']),
      body: form,
      type: formType,
      auth: 'basic',
    },
    {
      covers: ['GET /app/listAll', 'GET /app/admin', 'GET /app/user'],
      method: 'GET',
      path: fc.constantFrom('/app/listAll', '/app/admin', '/app/user', '/app/x', '/app/listAll/..'),
      body: none,
      type: undefined,
      auth: 'bearer',
    },
    {
      covers: ['GET /api/employee/create'],
      writes: ['employees'],
      method: 'GET',
      path: q('/api/employee/create', ['name', 'dateOfBirth']),
      body: none,
      type: undefined,
      auth: 'bearer',
    },
    {
      covers: ['POST /api/employee/create'],
      writes: ['employees'],
      method: 'POST',
      path: fc.constant('/api/employee/create'),
      body: orValid(jsonBodyOf(['name', 'dateOfBirth']), valid.employee),
      type: json,
      auth: 'bearer',
    },
    {
      covers: ['GET /api/employee/:id'],
      method: 'GET',
      path: segment.map((s) => `/api/employee/${s}`),
      body: none,
      type: undefined,
      auth: 'bearer',
    },
    {
      covers: ['POST /api/employee/search'],
      method: 'POST',
      path: fc.constant('/api/employee/search'),
      body: jsonBodyOf(['name', 'id', 'bornFrom', 'bornTo', 'limit', 'cursor']),
      type: json,
      auth: 'bearer',
    },
    {
      covers: ['PUT /api/employee/update'],
      writes: ['employees'],
      method: 'PUT',
      path: fc.oneof(
        q('/api/employee/update', ['id']),
        fc.constantFrom(...ctx.known.filter((_, i) => i % 2 === 0)).map((id) => `/api/employee/update?id=${id}`),
      ),
      body: orValid(jsonBodyOf(['id', 'name', 'dateOfBirth']), valid.employeeChange),
      type: json,
      auth: 'bearer',
    },
    {
      covers: ['DELETE /api/employee/delete'],
      writes: ['employees'],
      method: 'DELETE',
      path: q('/api/employee/delete', ['id']),
      body: jsonBodyOf(['id']),
      type: json,
      auth: 'bearer',
    },
    {
      covers: ['POST /api/user'],
      writes: ['user_data', 'user_activity'],
      method: 'POST',
      path: fc.constant('/api/user'),
      body: orValid(jsonBodyOf(['name', 'email']), valid.user),
      type: json,
      auth: 'bearer',
    },
    {
      covers: ['PUT /api/user'],
      writes: ['user_data', 'user_activity'],
      method: 'PUT',
      path: fc.constant('/api/user'),
      body: orValid(jsonBodyOf(['id', 'name', 'email']), valid.userChange),
      type: json,
      auth: 'bearer',
    },
    {
      covers: ['DELETE /api/user'],
      writes: ['user_data', 'user_activity'],
      method: 'DELETE',
      path: q('/api/user', ['id']),
      body: jsonBodyOf(['id']),
      type: json,
      auth: 'bearer',
    },
    {
      covers: ['GET /api/users/activity'],
      method: 'GET',
      path: q('/api/users/activity', ['userId', 'limit', 'before']),
      body: none,
      type: undefined,
      auth: 'bearer',
    },
    {
      covers: ['POST /api/users/activity'],
      writes: ['user_activity'],
      method: 'POST',
      path: fc.constant('/api/users/activity'),
      body: orValid(jsonBodyOf(['userId', 'type', 'detail']), valid.activity),
      type: json,
      auth: 'bearer',
    },
    get('/oauth/token_key', 'basic'),
    get('/'),
    get('/.well-known/jwks.json'),
    get('/.well-known/oauth-authorization-server'),
    get('/.well-known/openid-configuration'),
    {
      covers: ['GET /userinfo'],
      method: 'GET',
      path: q('/userinfo', ['access_token', 'scope']),
      body: none,
      type: undefined,
      auth: 'bearer',
    },
    {
      covers: ['POST /userinfo'],
      method: 'POST',
      path: q('/userinfo', ['access_token']),
      body: form,
      type: formType,
      auth: 'bearer',
    },
    get('/health'),
    get('/ready'),
    get('/metrics'),
    get('/openapi.json'),
    get('/docs'),
    {
      covers: ['GET /docs/oauth2-redirect.html'],
      method: 'GET',
      path: q('/docs/oauth2-redirect.html', ['code', 'state', 'iss', 'error']),
      body: none,
      type: undefined,
      auth: 'none',
    },
    get('/oauth/sign-in/style.css'),
    get('/oauth/sign-in/logo'),
    {
      covers: ['GET /docs/assets/:file'],
      method: 'GET',
      path: asset.map((file) => `/docs/assets/${file}`),
      body: none,
      type: undefined,
      auth: 'none',
    },
    ...accountRoutes(segment, q),
  ];
}

/**
 * Account administration, last in the run. Ids are the fixture account's, hostile segments, or
 * nearby numbers, never the initial accounts' (the suite's token is john.doe's).
 */
function accountRoutes(
  segment: fc.Arbitrary<string>,
  q: (path: string, fields: readonly string[]) => fc.Arbitrary<string>,
): Route[] {
  const json = 'application/json';
  // Never admin (1) or john.doe (2) as written: the suite's token is john.doe's, and later tests
  // need it. Their other spellings (`01`, `0x2`, `%31`…) are fuzzed: each is no account.
  const initial = (raw: string): boolean => raw === '1' || raw === '2';
  const id = fc.oneof(
    segment.filter((s) => !initial(s)),
    fc.constantFrom('01', '02', '0x1', '0x2', '1.0', '2.0', '+1', '%2B2', '1e0', '2e0', '%31', '%32'),
    fc.constant(ctx.account),
    fc.integer({ min: 3, max: 9 }).map(String),
  );
  const users = (suffix: string) => id.map((i) => `/app/admin/users/${i}${suffix}`);
  const accounts = ['users', 'user_roles', 'refresh_tokens', 'revocations'];
  const account = fc
    .record({ username: fc.string({ minLength: 1, maxLength: 20 }), roles: fc.constantFrom([], ['USER'], ['NOPE']) })
    .map((a) => JSON.stringify({ ...a, password: 'fuzzed-password' }));
  const common = { body: fc.constant(undefined), type: undefined, auth: 'bearer' } as const;
  return [
    {
      covers: [
        'GET /app/admin/users',
        'GET /app/admin/users/:id',
        'GET /app/admin/users/:id/sessions',
        'GET /app/admin/users/:id/consents',
        'GET /app/me/consents',
        'GET /app/admin/roles',
      ],
      method: 'GET',
      path: fc.oneof(
        q('/app/admin/users', ['limit', 'cursor', 'username']),
        users(''),
        users('/sessions'),
        users('/consents'),
        fc.constant('/app/me/consents'),
        fc.constant('/app/admin/roles'),
      ),
      ...common,
    },
    {
      covers: ['POST /app/admin/users'],
      writes: accounts,
      method: 'POST',
      path: fc.constant('/app/admin/users'),
      body: orValid(jsonBodyOf(['username', 'password', 'firstName', 'lastName', 'roles']), account),
      type: json,
      auth: 'bearer',
    },
    {
      covers: ['PATCH /app/admin/users/:id'],
      writes: accounts,
      method: 'PATCH',
      path: users(''),
      body: jsonBodyOf(['firstName', 'lastName', 'roles', 'enabled']),
      type: json,
      auth: 'bearer',
    },
    {
      covers: ['PUT /app/admin/users/:id/password', 'PUT /app/me/password'],
      writes: accounts,
      method: 'PUT',
      path: fc.oneof(users('/password'), fc.constant('/app/me/password')),
      body: jsonBodyOf(['password', 'currentPassword', 'newPassword']),
      type: json,
      auth: 'bearer',
    },
    {
      covers: ['POST /app/admin/roles'],
      writes: ['roles'],
      method: 'POST',
      path: fc.constant('/app/admin/roles'),
      body: jsonBodyOf(['roleName', 'description']),
      type: json,
      auth: 'bearer',
    },
    {
      covers: [
        'DELETE /app/admin/users/:id',
        'DELETE /app/admin/users/:id/sessions',
        'DELETE /app/admin/users/:id/sessions/:sid',
        'DELETE /app/admin/users/:id/lockout',
        'DELETE /app/admin/users/:id/consents/:clientId',
        'DELETE /app/me/consents/:clientId',
      ],
      writes: [...accounts, 'consents'],
      method: 'DELETE',
      path: fc.oneof(
        users(''),
        users('/sessions'),
        users('/lockout'),
        segment.chain((s) => users(`/sessions/${s}`)),
        segment.chain((s) => users(`/consents/${s}`)),
        segment.map((s) => `/app/me/consents/${s}`),
      ),
      ...common,
    },
  ];
}

/** The route's paths, and now and then one of their other spellings (`test/helpers/spellings.ts`). */
const respelled = (paths: fc.Arbitrary<string>): fc.Arbitrary<string> =>
  fc.oneof(
    { weight: 4, arbitrary: paths },
    {
      weight: 1,
      arbitrary: paths.chain((p) => {
        const [path = p, query] = p.split(/\?(.*)/s);
        return fc.constantFrom(...spellings(path)).map((s) => (query === undefined ? s : `${s}?${query}`));
      }),
    },
  );

function requests(route: Route): fc.Arbitrary<Req> {
  const types =
    route.type === undefined
      ? fc.constant(undefined)
      : fc.oneof(
          { weight: 5, arbitrary: fc.constant(route.type) },
          fc.constantFrom(...CONTENT_TYPES),
          fc.constant(undefined),
        );
  return fc.record({
    method: fc.constant(route.method),
    path: respelled(route.path),
    body: route.body,
    contentType: types,
    auth: authOf(route.auth),
    ifMatch: fc.option(headerValue, { freq: 3 }),
    requestId: fc.option(headerValue, { freq: 3 }),
  });
}

/** fast-check's report (seed, path, counterexample) becomes the failure message, so it reaches the output. */
async function fuzz(route: Route): Promise<void> {
  const seed = process.env['FUZZ_SEED'];
  const path = process.env['FUZZ_PATH'];
  const declared = new Map(routesOf(ctx.server.troupe.app).map((r) => [`${r.method} ${r.path}`, r.access.kind]));
  const secured = route.covers.some((c) => declared.get(c) !== 'public');
  const details = await fc.check(
    fc.asyncProperty(requests(route), (req) => check(req, route.writes ?? [], secured)),
    {
      numRuns: RUNS_PER_ROUTE,
      ...(seed === undefined ? {} : { seed: Number(seed) }),
      ...(path === undefined ? {} : { path }),
    },
  );
  if (details.failed) {
    const report = fc.defaultReportMessage(details) ?? 'failed';
    const error =
      details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance);
    throw new Error(`${error}\n${report.slice(0, 3000)}`);
  }
}

// The routes are built inside each test (they need the fixtures of before()); their names are fixed here.
const ROUTE_NAMES = [
  'POST /oauth/token',
  'GET /oauth/authorize',
  'POST /oauth/authorize',
  'POST /oauth/authorize/consent',
  'GET /oauth/logout',
  'POST /oauth/logout',
  'GET /oauth/account',
  'POST /oauth/account/*',
  'POST /oauth/revoke',
  'POST /oauth/introspect',
  'POST /oauth/check_token',
  'GET /app/*',
  'GET /api/employee/create',
  'POST /api/employee/create',
  'GET /api/employee/:id',
  'POST /api/employee/search',
  'PUT /api/employee/update',
  'DELETE /api/employee/delete',
  'POST /api/user',
  'PUT /api/user',
  'DELETE /api/user',
  'GET /api/users/activity',
  'POST /api/users/activity',
  'GET /oauth/token_key',
  'GET /',
  'GET /.well-known/jwks.json',
  'GET /.well-known/oauth-authorization-server',
  'GET /.well-known/openid-configuration',
  'GET /userinfo',
  'POST /userinfo',
  'GET /health',
  'GET /ready',
  'GET /metrics',
  'GET /openapi.json',
  'GET /docs',
  'GET /docs/oauth2-redirect.html',
  'GET /docs/assets/:file',
  'GET /oauth/sign-in/style.css',
  'GET /oauth/sign-in/logo',
  'GET /app/admin/**',
  'POST /app/admin/users',
  'PATCH /app/admin/users/:id',
  'PUT …/password',
  'POST /app/admin/roles',
  'DELETE /app/admin/users/**',
];

t('every route the server registers is fuzzed below', () => {
  const registered = routesOf(ctx.server.troupe.app)
    .map((r) => `${r.method} ${r.path}`)
    .sort();
  assert.equal([...new Set(routes().flatMap((r) => r.covers))].sort(), registered);
  assert.is(routes().length, ROUTE_NAMES.length);
});

ROUTE_NAMES.forEach((name, i) => {
  t(
    `${name} › ${RUNS_PER_ROUTE} hostile requests: 4xx or success, no hang, failures change nothing, successes only their tables`,
    async () => {
      const route = routes()[i];
      if (!route) throw new Error(`no route ${i}`);
      await fuzz(route);
    },
  );
});

t('POST /api/users/activity › a detail nested 100 000 deep is a 400 (it once overflowed the stack: 500)', async () => {
  const userId = ctx.known[1] ?? '';
  const deep = `${'{"a":'.repeat(100_000)}1${'}'.repeat(100_000)}`;
  await check(
    {
      method: 'POST',
      path: '/api/users/activity',
      body: `{"userId":"${userId}","type":"DEEP","detail":${deep}}`,
      contentType: 'application/json',
      auth: `Bearer ${ctx.token}`,
      ifMatch: null,
      requestId: null,
    },
    ['user_activity'],
  );
  const res = await send(ctx.server.url, 'POST', '/api/users/activity', {
    token: ctx.token,
    json: `{"userId":"${userId}","type":"DEEP","detail":${deep}}`,
  });
  assert.is(res.status, 400);
  assert.equal(
    (res.body as { errors: { field: string }[] }).errors.map((e) => e.field),
    ['detail'],
  );
});

t.run();

/**
 * A route's declared input (`route()` in `http/route-table.ts`, `validated` in `http/validation.ts`):
 * validated from its schemas after the access check and the body parser, before the handler, which
 * gets it typed; a schema declared only for the description is left to the handler.
 */
import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { z } from 'zod';
import { bearerAuthenticator } from '../../http/middleware/bearer-auth.ts';
import { jsonBody } from '../../http/middleware/body.ts';
import { requestFrame } from '../../http/middleware/frame.ts';
import { dispatch, mountRoutes, route } from '../../http/route-table.ts';
import { bearer, PUBLIC, type Guards } from '../../http/guards.ts';
import type { AppState } from '../../http/state.ts';
import { employeeRoutes } from '../../http/routes/employee.ts';
import { documented, isDocumented, json, optionalJson } from '../../http/validation.ts';
import { createLogger } from '../../src/logger.ts';
import { createMetrics } from '../../src/telemetry/metrics.ts';
import { InvalidTokenError, type Principal } from '../../src/security/jwt.ts';

const writer: Principal = {
  username: 'writer',
  subject: 'account:1',
  clientId: 'c',
  scope: ['write'],
  authorities: [],
  jti: 'w',
  exp: Math.floor(Date.now() / 1000) + 60,
  iat: 0,
  loginId: undefined,
  kid: 'k',
};

const guards: Guards = {
  ...bearerAuthenticator({
    enabled: true,
    realm: 'test',
    verify: async (token) => {
      if (token !== 'writer') throw new InvalidTokenError('Access token is malformed');
      return writer;
    },
  }),
  client: async () => {
    throw new Error('no client routes here');
  },
  confidentialClient: async () => {
    throw new Error('no client routes here');
  },
  realm: 'test',
  firstParty: () => false,
};

const ran: unknown[] = [];
const declared = { tag: 'operations', replies: {} } as const;
const routes = [
  route(
    {
      ...declared,
      method: 'POST',
      path: '/things',
      access: bearer('write'),
      summary: 'A thing',
      parse: jsonBody(1024),
      query: z.strictObject({ mode: z.enum(['dry', 'wet']).optional() }),
      body: json(z.strictObject({ name: z.string().min(1), size: z.number().int().default(1) })),
      ifMatch: true,
    },
    async (ctx, { query, body, ifMatch }) => {
      ran.push({ mode: query.mode, name: body.name, size: body.size, ifMatch });
      ctx.status = 204;
    },
  ),
  route(
    {
      ...declared,
      method: 'DELETE',
      path: '/things/:n',
      access: PUBLIC,
      summary: 'A thing by number',
      parse: jsonBody(1024),
      params: z.strictObject({
        n: z
          .string()
          .regex(/^\d{1,3}$/)
          .transform(Number),
      }),
      body: optionalJson(z.strictObject({ reason: z.string() })),
    },
    async (ctx, { params, body }) => {
      ran.push({ n: params.n + 1, reason: body?.reason });
      ctx.status = 204;
    },
  ),
  route(
    {
      ...declared,
      method: 'GET',
      path: '/described',
      access: PUBLIC,
      summary: 'Checked by its handler',
      query: documented(z.strictObject({ n: z.string() })),
    },
    async function describedOnly(ctx) {
      ran.push(ctx.querystring);
      ctx.body = 'ok';
    },
  ),
];

const ctx = {} as { server: Server; url: string };
const t = suite('a route’s declared input is validated before its handler, after its access check', ctx);
t.before(async () => {
  const app = new Koa<AppState>();
  app.silent = true;
  app.use(requestFrame(createLogger('silent'), createMetrics()));
  app.use(dispatch(mountRoutes(routes, guards), guards));
  ctx.server = app.listen(0, '127.0.0.1');
  await once(ctx.server, 'listening');
  ctx.url = `http://127.0.0.1:${(ctx.server.address() as AddressInfo).port}`;
});
t.before.each(() => {
  ran.length = 0;
});
t.after(() => {
  ctx.server?.close();
});

const send = (
  path: string,
  init: { method?: string; body?: unknown; token?: string; headers?: Record<string, string> },
) =>
  fetch(`${ctx.url}${path}`, {
    method: init.method ?? 'POST',
    headers: {
      ...(init.body === undefined ? {} : { 'Content-Type': 'application/json' }),
      ...(init.token === undefined ? {} : { Authorization: `Bearer ${init.token}` }),
      ...init.headers,
    },
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
  });

const problemOf = async (res: Response) =>
  (await res.json()) as { type: string; detail: string; errors?: { field: string; message: string }[] };

t('no token: 401 before the input is looked at', async () => {
  const res = await send('/things?mode=nope', { body: { name: '' } });
  assert.is(res.status, 401);
  assert.equal(ran, []);
});

t('the query, then the body, then If-Match, each a 400 validation problem naming its part', async () => {
  const query = await send('/things?mode=nope', { token: 'writer', body: { name: '' } });
  assert.is(query.status, 400);
  const q = await problemOf(query);
  assert.is(q.type, 'urn:problem:troupe:validation');
  assert.is(q.detail, 'The query is not valid');
  assert.equal(
    q.errors?.map((e) => e.field),
    ['mode'],
  );
  const repeated = await problemOf(await send('/things?mode=dry&mode=wet', { token: 'writer', body: { name: 'a' } }));
  assert.is(repeated.detail, 'Query parameter mode is repeated');
  const body = await problemOf(await send('/things', { token: 'writer', body: { name: '', extra: 1 } }));
  assert.is(body.detail, 'The request is not valid');
  assert.equal(body.errors?.map((e) => e.field).sort(), ['extra', 'name']);
  const absent = await problemOf(await send('/things', { token: 'writer' }));
  assert.is(absent.detail, 'A JSON object body is required');
  const array = await problemOf(await send('/things', { token: 'writer', body: [1] }));
  assert.is(array.detail, 'The body must be a JSON object');
  const ifMatch = await send('/things', { token: 'writer', body: { name: 'a' }, headers: { 'If-Match': 'three' } });
  assert.is(ifMatch.status, 400);
  assert.equal((await problemOf(ifMatch)).errors, [{ field: 'If-Match', message: 'malformed' }]);
  assert.equal(ran, []);
});

t("every message speaks the house style, never zod's own words; an unknown field each named", async () => {
  const query = await problemOf(await send('/things?mode=nope', { token: 'writer', body: { name: 'a' } }));
  assert.equal(query.errors, [{ field: 'mode', message: 'must be one of dry, wet' }]);
  const body = await problemOf(
    await send('/things', { token: 'writer', body: { name: '', size: 'x', salary: 1, bonus: 2 } }),
  );
  assert.equal(body.errors, [
    { field: 'name', message: 'must be at least 1 character' },
    { field: 'size', message: 'must be a number' },
    { field: 'salary', message: 'is not a field of this request' },
    { field: 'bonus', message: 'is not a field of this request' },
  ]);
  const missing = await problemOf(await send('/things', { token: 'writer', body: { size: 1.5 } }));
  assert.equal(missing.errors, [
    { field: 'name', message: 'is required' },
    { field: 'size', message: 'must be a whole number' },
  ]);
  for (const problem of [query, body, missing])
    for (const error of problem.errors ?? []) assert.not.match(error.message, /^[A-Z]|expected|Unrecognized/);
  assert.equal(ran, []);
});

t('the handler gets the parsed input: defaults applied, transforms run, If-Match read', async () => {
  const res = await send('/things?mode=dry', { token: 'writer', body: { name: 'a' }, headers: { 'If-Match': '"3"' } });
  assert.is(res.status, 204);
  assert.is((await send('/things', { token: 'writer', body: { name: 'b', size: 2 } })).status, 204);
  assert.equal(ran, [
    { mode: 'dry', name: 'a', size: 1, ifMatch: 3 },
    { mode: undefined, name: 'b', size: 2, ifMatch: undefined },
  ]);
});

t('path parameters are validated as the path; an optional body may be absent, never malformed', async () => {
  const path = await send('/things/x1', { method: 'DELETE' });
  assert.is(path.status, 400);
  const p = await problemOf(path);
  assert.is(p.detail, 'The path is not valid');
  assert.equal(
    p.errors?.map((e) => e.field),
    ['n'],
  );
  assert.is((await send('/things/41', { method: 'DELETE' })).status, 204);
  assert.is((await send('/things/1', { method: 'DELETE', body: { reason: 'done' } })).status, 204);
  assert.is((await send('/things/1', { method: 'DELETE', body: { reason: 3 } })).status, 400);
  assert.equal(ran, [
    { n: 42, reason: undefined },
    { n: 2, reason: 'done' },
  ]);
});

t('a schema declared for the description only is left to the handler', async () => {
  const res = await send('/described?other=1&other=2', { method: 'GET' });
  assert.is(res.status, 200);
  assert.equal(ran, ['other=1&other=2']);
});

t('a route that validates nothing runs its handler as it is, and its handler is given no input', () => {
  const handler = async () => {};
  const plain = route({ ...declared, method: 'GET', path: '/x', access: PUBLIC, summary: 'x' }, handler);
  assert.equal(plain.run, [handler]);
  const described = routes[2];
  assert.is(described?.run.length, 1);
  assert.is(described?.run[0]?.name, 'describedOnly');
  // @ts-expect-error a route that declares no input hands its handler none
  route({ ...declared, method: 'GET', path: '/y', access: PUBLIC, summary: 'y' }, async (_c, _input: object) => {});
});

t('a route that validates a JSON body it does not parse does not start', () => {
  const body = json(z.strictObject({}));
  assert.throws(
    () => route({ ...declared, method: 'POST', path: '/z', access: PUBLIC, summary: 'z', body }, async () => {}),
    /POST \/z validates a JSON body it does not parse/,
  );
});

t('GET /api/employee/:id, the read every client makes most, is validated by its declared path schema', () => {
  const employees = {} as Parameters<typeof employeeRoutes>[0]['employees'];
  const deps = { askTimeoutMs: 1, maxBodyBytes: 1, read: PUBLIC, write: PUBLIC, employees };
  const get = employeeRoutes(deps).find((r) => r.method === 'GET' && r.path === '/api/employee/:id');
  assert.equal(
    get?.run.map((m) => m.name),
    ['validateInput'],
  );
  assert.ok(get && get.doc.params !== undefined && !isDocumented(get.doc.params), 'its path schema is the check');
});

t.run();

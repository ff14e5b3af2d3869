/**
 * The lookup in front of the router (`http/route-lookup.ts`) against @koa/router itself: every
 * route the server declares, under its own path and near misses of it, with every method, finds
 * the layer the router would run or leaves the request to the router; and over HTTP a request
 * either of them matches answers the same.
 */
import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { routesOf } from '../../http/app.ts';
import { PUBLIC, type Guards } from '../../http/guards.ts';
import { routeLookup } from '../../http/route-lookup.ts';
import { changesState, dispatch, mountRoutes, route, type Method, type Route } from '../../http/route-table.ts';
import type { AppState, RouteContext } from '../../http/state.ts';
import { startTestServer } from '../helpers/server.ts';

const guards: Guards = {
  authenticate: async () => undefined,
  client: async (_ctx, next) => next(),
  confidentialClient: async (_ctx, next) => next(),
  realm: 'test',
  firstParty: () => false,
};

const echo = async (ctx: RouteContext): Promise<void> => {
  ctx.body = { route: ctx.state.route, method: ctx.method, params: ctx.params };
};
const declare = (method: Method, path: string, access = PUBLIC): Route =>
  route({ method, path, access, summary: `${method} ${path}`, tag: 'operations', replies: {} }, echo);

/**
 * The server's own table (method, path, access), a GET that writes, whose HEAD the router refuses,
 * and two routes that both take `/files/x`, which only the router may decide.
 */
async function declaredRoutes(): Promise<Route[]> {
  const server = await startTestServer();
  try {
    const routes = routesOf(server.troupe.app).map((r) => declare(r.method, r.path, r.access));
    return [
      ...routes,
      changesState(declare('GET', '/api/employee/writes')),
      declare('GET', '/files/*rest'),
      declare('GET', '/files/:name'),
    ];
  } finally {
    await server.close();
  }
}

/** A request path for a route's template, and spellings near it that another route, or none, may take. */
function pathsFor(template: string): string[] {
  const filled = template.replace(/:\w+/g, (_m) => 'p1');
  const prefix = filled.slice(0, filled.lastIndexOf('/') + 1);
  return [
    filled,
    `${filled}/`,
    `${filled}/more`,
    filled.toUpperCase(),
    prefix,
    `${prefix}a%2Fb`,
    `${prefix}%E2%82%AC`,
    `${prefix}%zz`,
    `/${filled}`,
  ];
}

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'PROPFIND'];

const t = suite('route lookup: it finds the route @koa/router would run, or leaves the request to it', {
  routes: [] as Route[],
});
t.before(async (c) => {
  c.routes = await declaredRoutes();
});

t('every declared route, and every path near it, with every method', (c) => {
  const router = mountRoutes(c.routes, guards);
  const lookup = routeLookup(router);
  let found = 0;
  let left = 0;
  for (const path of new Set(c.routes.flatMap((r) => pathsFor(r.path))))
    for (const method of METHODS) {
      const { pathAndMethod } = router.match(path, method);
      const seam = lookup(path, method);
      if (seam === undefined) {
        left += 1;
        continue;
      }
      found += 1;
      const [layer, ...more] = pathAndMethod;
      assert.is(more.length, 0, `${method} ${path}: the router would run more than one route`);
      assert.ok(seam.layer === layer, `${method} ${path}: ${String(seam.layer.path)}, not ${String(layer?.path)}`);
      assert.equal(seam.params, layer.params(path, layer.captures(path), {}), `${method} ${path}: parameters`);
    }
  assert.ok(found > 0 && left > 0);
  // The requests the benchmark's claims make are among those found.
  for (const [method, path] of [
    ['GET', '/app/listAll'],
    ['HEAD', '/app/listAll'],
    ['GET', '/api/employee/p1'],
    ['POST', '/oauth/token'],
  ] as const)
    assert.ok(lookup(path, method), `${method} ${path} is found by the lookup`);
  for (const [method, path] of [
    ['HEAD', '/api/employee/writes'],
    ['OPTIONS', '/app/listAll'],
    ['DELETE', '/app/listAll'],
    ['GET', '/app/admin/users/p1/sessions'],
    ['GET', '/files/p1'],
  ] as const)
    assert.is(lookup(path, method), undefined, `${method} ${path} is left to the router`);
});

t('over HTTP a request answers the same whether the lookup or the router matched it', async (c) => {
  const app = new Koa<AppState>();
  app.silent = true;
  // Every route public, so that each answers with what it matched.
  const open = c.routes.map((r) =>
    r.changesState ? changesState(declare(r.method, r.path)) : declare(r.method, r.path),
  );
  app.use(dispatch(mountRoutes(open, guards), guards));
  const server: Server = app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  try {
    const body = async (method: string, path: string): Promise<unknown> => {
      const res = await fetch(url + path, { method });
      assert.is(res.status, 200, `${method} ${path}`);
      return res.json();
    };
    // Found by the lookup: a plain path, one segment after a literal prefix.
    assert.equal(await body('GET', '/app/listAll'), { route: '/app/listAll', method: 'GET', params: {} });
    assert.equal(await body('GET', '/api/employee/a%20b'), {
      route: '/api/employee/:id',
      method: 'GET',
      params: { id: 'a b' },
    });
    // Only the router matches these.
    assert.equal(await body('GET', '/app/admin/users/u1/sessions'), {
      route: '/app/admin/users/:id/sessions',
      method: 'GET',
      params: { id: 'u1' },
    });
    assert.equal(await body('DELETE', '/app/admin/users/u1/sessions/s1'), {
      route: '/app/admin/users/:id/sessions/:sid',
      method: 'DELETE',
      params: { id: 'u1', sid: 's1' },
    });
    const head = await fetch(`${url}/api/employee/e1`, { method: 'HEAD' });
    assert.is(head.status, 200);
    const writes = await fetch(`${url}/api/employee/writes`, { method: 'HEAD' });
    assert.is(writes.status, 405);
    const wrong = await fetch(`${url}/app/listAll`, { method: 'DELETE' });
    assert.is(wrong.status, 405);
    assert.match(wrong.headers.get('allow') ?? '', /GET/);
    const options = await fetch(`${url}/api/employee/e1`, { method: 'OPTIONS' });
    assert.is(options.status, 200);
    assert.match(options.headers.get('allow') ?? '', /GET/);
  } finally {
    server.close();
  }
});

t.run();

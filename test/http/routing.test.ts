/**
 * The access layer on its own (`http/route-table.ts`, `http/guards.ts`): a small Koa app of declared routes behind the
 * real bearer authentication, with a verifier that knows two tokens.
 */
import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { bearerAuthenticator } from '../../http/middleware/bearer-auth.ts';
import { requestFrame } from '../../http/middleware/frame.ts';
import {
  dispatch,
  mountRoutes,
  routeTable,
  changesState,
  oauthErrors,
  route,
  type Method,
  type Route,
} from '../../http/route-table.ts';
import { bearer, bearerWithRole, PUBLIC, role, type Access, type Guards } from '../../http/guards.ts';
import type { Handler } from '../../http/validation.ts';
import { HttpProblem } from '../../http/problems.ts';
import type { AppState } from '../../http/state.ts';
import { createLogger } from '../../src/logger.ts';
import { createMetrics } from '../../src/telemetry/metrics.ts';
import { InvalidTokenError, type Principal } from '../../src/security/jwt.ts';

/** A route with no input and nothing to describe. */
const bare = (method: Method, path: string, access: Access, handler: Handler<unknown>): Route =>
  route({ method, path, access, summary: `${method} ${path}`, tag: 'operations', replies: {} }, handler);

const principal = (username: string, authorities: string[], scope: string[]): Principal => ({
  username,
  subject: 'account:1',
  clientId: 'c',
  scope,
  authorities,
  jti: username,
  exp: Math.floor(Date.now() / 1000) + 60,
  iat: 0,
  loginId: undefined,
  kid: 'k',
});
const PRINCIPALS: Record<string, Principal> = {
  admin: principal('admin', ['ADMIN'], ['read']),
  user: principal('user', ['USER'], ['read', 'write']),
};

function guardsFor(enabled: boolean): Guards {
  const verify = async (t: string): Promise<Principal> => {
    const p = PRINCIPALS[t];
    if (!p) throw new InvalidTokenError('Access token is malformed');
    return p;
  };
  return {
    ...bearerAuthenticator({ enabled, realm: 'test', verify }),
    client: async () => {
      throw new Error('no client routes here');
    },
    confidentialClient: async () => {
      throw new Error('no client routes here');
    },
    realm: 'test',
    firstParty: () => false,
  };
}

interface Ctx {
  server: Server;
  url: string;
  ran: string[];
  open: { server: Server; url: string };
}
const ctx = { ran: [] } as unknown as Ctx;

function routes(): Route[] {
  const handler = (name: string) => async (c: Koa.ParameterizedContext<AppState>) => {
    ctx.ran.push(name);
    c.body = `${name} for ${c.state.auth?.enabled ? c.state.auth.principal.username : 'anyone'}`;
  };
  return [
    bare('GET', '/open', PUBLIC, handler('open')),
    bare('GET', '/app/any', bearer(), handler('any')),
    bare('POST', '/app/write', bearer('write'), handler('write')),
    bare('GET', '/app/admin', role('ADMIN'), handler('admin')),
    bare('POST', '/app/admin/things', bearerWithRole('write', 'ADMIN'), handler('things')),
    bare('GET', '/open/items/special', PUBLIC, handler('special')),
    bare(
      'DELETE',
      '/open/items/:id',
      PUBLIC,
      async (c: Koa.ParameterizedContext<AppState, { params: Record<string, string> }>) => {
        ctx.ran.push(`delete ${c.params['id'] ?? ''}`);
        c.status = 204;
      },
    ),
  ];
}

async function serve(enabled: boolean, declared = routes()): Promise<{ server: Server; url: string }> {
  const app = new Koa<AppState>();
  app.silent = true;
  const guards = guardsFor(enabled);
  const router = mountRoutes(declared, guards);
  app.use(requestFrame(createLogger('silent'), createMetrics()));
  app.use(dispatch(router, guards));
  const server = app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

const t = suite('routing: every route runs the check of its own access declaration', ctx);
t.before(async () => {
  ({ server: ctx.server, url: ctx.url } = await serve(true));
  ctx.open = await serve(false);
});
t.before.each(() => {
  ctx.ran.length = 0;
});
t.after(async () => {
  ctx.server?.close();
  ctx.open?.server.close();
});

const call = (path: string, tokenName?: string, method = 'GET', base = ctx.url): Promise<Response> =>
  fetch(`${base}${path}`, { method, headers: tokenName === undefined ? {} : { Authorization: `Bearer ${tokenName}` } });

t('public runs for anyone; token needs a token (401 with the bare challenge, the handler never runs)', async () => {
  assert.is((await call('/open')).status, 200);
  const res = await call('/app/any');
  assert.is(res.status, 401);
  assert.is(res.headers.get('www-authenticate'), 'Bearer realm="test"');
  assert.equal(ctx.ran, ['open']);
  assert.is(await (await call('/app/any', 'admin')).text(), 'any for admin');
});

t('a scope: without a token 401, with a token lacking it 403 insufficient_scope, with it 200', async () => {
  assert.is((await call('/app/write', undefined, 'POST')).status, 401);
  const res = await call('/app/write', 'admin', 'POST');
  assert.is(res.status, 403);
  assert.match(
    res.headers.get('www-authenticate') ?? '',
    /error="insufficient_scope", error_description="[^"]+", scope="write"/,
  );
  assert.is((await call('/app/write', 'user', 'POST')).status, 200);
  assert.equal(ctx.ran, ['write']);
});

t(
  'a role: without a token 401 before the handler; with a token the handler runs, then a missing role discards its result (403)',
  async () => {
    assert.is((await call('/app/admin')).status, 401);
    assert.equal(ctx.ran, []);
    const denied = await call('/app/admin', 'user');
    assert.is(denied.status, 403);
    assert.equal(await denied.json(), { error: 'access_denied', error_description: 'Access is denied' });
    assert.equal(ctx.ran, ['admin'], 'post-authorization: the handler ran first');
    assert.is(await (await call('/app/admin', 'admin')).text(), 'admin for admin');
  },
);

t(
  'matching is exact: other cases and a trailing slash run no route (401 under a secured prefix without a token, 404 with one)',
  async () => {
    for (const path of ['/APP/any', '/App/any', '/app/ANY', '/app/any/', '/%61pp/any']) {
      assert.is((await call(path)).status, 401, path);
      assert.is((await call(path, 'admin')).status, 404, path);
    }
    assert.is((await call('/OPEN')).status, 404);
    assert.equal(ctx.ran, []);
  },
);

t(
  'a wrong method under a secured prefix is 401 without a token (no Allow leaks), 405 with Allow with one',
  async () => {
    const anonymous = await call('/app/any', undefined, 'DELETE');
    assert.is(anonymous.status, 401);
    assert.is(anonymous.headers.get('allow'), null);
    const known = await call('/app/any', 'admin', 'DELETE');
    assert.is(known.status, 405);
    assert.match(known.headers.get('allow') ?? '', /GET/);
  },
);

t(
  'a path the table names as it is answers with its own routes alone: another method is 405 with theirs, never a parameterised route',
  async () => {
    assert.is(await (await call('/open/items/special')).text(), 'special for anyone');
    const shadowed = await call('/open/items/special', undefined, 'DELETE');
    assert.is(shadowed.status, 405);
    assert.equal(shadowed.headers.get('allow')?.split(', ').sort(), ['GET', 'HEAD']);
    assert.is((await call('/open/items/42', undefined, 'DELETE')).status, 204);
    assert.equal(ctx.ran, ['special', 'delete 42']);
    const wrong = await call('/open/items/special', undefined, 'PUT');
    assert.is(wrong.status, 405);
    assert.equal(wrong.headers.get('allow')?.split(', ').sort(), ['GET', 'HEAD']);
    assert.is((await call('/open/items/special', undefined, 'OPTIONS')).status, 200);
    assert.is((await call('/open/items/special', undefined, 'PROPFIND')).status, 501);
  },
);

t(
  'a path no route has is 404 whatever the method; OPTIONS under a secured prefix is 401 without a token, 200 with Allow with one',
  async () => {
    assert.is((await call('/nothing', undefined, 'PROPFIND')).status, 404);
    assert.is((await call('/open/nothing', undefined, 'DELETE')).status, 404);
    const anonymous = await call('/app/any', undefined, 'OPTIONS');
    assert.is(anonymous.status, 401);
    assert.is(anonymous.headers.get('allow'), null);
    const known = await call('/app/any', 'admin', 'OPTIONS');
    assert.is(known.status, 200);
    assert.equal(known.headers.get('allow')?.split(', ').sort(), ['GET', 'HEAD']);
    assert.is((await call('/open/items/special', undefined, 'HEAD')).status, 200);
    assert.equal(ctx.ran, ['special']);
  },
);

t('security switched off: every route runs without a token, roles after the handler are not checked', async () => {
  assert.is(await (await call('/app/admin', undefined, 'GET', ctx.open.url)).text(), 'admin for anyone');
  assert.is((await call('/app/write', undefined, 'POST', ctx.open.url)).status, 200);
  assert.is(
    (await call('/app/admin/things', undefined, 'POST', ctx.open.url)).status,
    403,
    'a role before: never open',
  );
  assert.equal(ctx.ran, ['admin', 'write']);
});

t(
  'a role checked before the handler: 401 without a token, 403 without the role or the scope, the handler never runs',
  async () => {
    assert.is((await call('/app/admin/things', undefined, 'POST')).status, 401);
    const denied = await call('/app/admin/things', 'admin', 'POST');
    assert.is(denied.status, 403, 'the admin token lacks the write scope');
    const user = await call('/app/admin/things', 'user', 'POST');
    assert.is(user.status, 403);
    assert.equal(await user.json(), { error: 'access_denied', error_description: 'Access is denied' });
    assert.equal(ctx.ran, [], 'no handler ran');
  },
);

t('the route table refuses a state-changing route whose access is checked after the handler', () => {
  const run = async () => {};
  for (const method of ['POST', 'PUT', 'PATCH', 'DELETE'] as const)
    assert.throws(
      () => mountRoutes([bare(method, '/app/x', role('ADMIN'), run)], guardsFor(true)),
      /changes state: its access must be checked before the handler/,
      method,
    );
  assert.throws(
    () => mountRoutes([changesState(bare('GET', '/app/x', role('ADMIN'), run))], guardsFor(true)),
    /changes state/,
  );
});

t('a route that declares no access does not compile, and does not start', () => {
  // @ts-expect-error a route must declare its access
  const undeclared: Route = { method: 'GET', path: '/x', run: [] };
  assert.throws(() => mountRoutes([undeclared], guardsFor(true)), /GET \/x declares no access/);
  assert.throws(
    // @ts-expect-error an unknown kind of access
    () => mountRoutes([bare('GET', '/y', { kind: 'anyone' }, async () => {})], guardsFor(true)),
    /unknown access/,
  );
});

t("a layer added to the router behind the declarations' back stops the route table (and so the start-up)", () => {
  const router = mountRoutes(routes(), guardsFor(true));
  router.get('/sneaky', async (c) => {
    c.body = 'open';
  });
  assert.throws(() => routeTable(router), /GET \/sneaky declares no access/);
});

t.run();

const formats = suite(
  'routing: an error takes the body its route declares, whatever the path',
  {} as {
    server: Server;
    url: string;
  },
);
formats.before(async (c) => {
  const refuse = async () => {
    throw new HttpProblem(400, 'bad_request', 'refused');
  };
  ({ server: c.server, url: c.url } = await serve(true, [
    bare('POST', '/oauth/plain', PUBLIC, refuse),
    oauthErrors(bare('POST', '/open/oauth-form', PUBLIC, refuse)),
  ]));
});
formats.after(async (c) => {
  c.server?.close();
});

formats('a problem+json route under /oauth, an OAuth route elsewhere, and a 405 as its path declares', async (c) => {
  const plain = await fetch(`${c.url}/oauth/plain`, { method: 'POST' });
  assert.is(plain.status, 400);
  assert.match(plain.headers.get('content-type') ?? '', /^application\/problem\+json/);
  const oauth = await fetch(`${c.url}/open/oauth-form`, { method: 'POST' });
  assert.is(oauth.status, 400);
  assert.equal(await oauth.json(), { error: 'invalid_request', error_description: 'refused' });
  const other = await fetch(`${c.url}/open/oauth-form`, { method: 'PUT' });
  assert.is(other.status, 405);
  assert.is(((await other.json()) as { error?: string }).error, 'invalid_request');
  const wrongMethod = await fetch(`${c.url}/oauth/plain`, { method: 'PUT' });
  assert.is(wrongMethod.status, 405);
  assert.match(wrongMethod.headers.get('content-type') ?? '', /^application\/problem\+json/);
});

formats('a path no route has is a problem 404, under /oauth too', async (c) => {
  const res = await fetch(`${c.url}/oauth/nothing-here`);
  assert.is(res.status, 404);
  assert.match(res.headers.get('content-type') ?? '', /^application\/problem\+json/);
});

formats.run();

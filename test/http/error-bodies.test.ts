import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { routesOf, type RouteInfo } from '../../http/app.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { bearer, login } from '../helpers/tokens.ts';

const ctx = {} as { server: TestServer; token: string; routes: readonly RouteInfo[] };
const t = suite('consistent error bodies on every route', ctx);
t.before(async () => {
  ctx.server = await startTestServer();
  ctx.token = (await login(ctx.server.url)).access_token;
  ctx.routes = routesOf(ctx.server.troupe.app).filter((r) => !r.path.includes(':file'));
});
t.after(async () => ctx.server?.close());

const concrete = (path: string): string => path.replace(/:[A-Za-z]+/g, 'not-an-id');
type Kind = 'problem' | 'oauth';

async function expectBody(res: Response, kind: Kind, what: string): Promise<void> {
  const type = res.headers.get('content-type') ?? '';
  const body = (await res.json()) as Record<string, unknown>;
  if (kind === 'problem') {
    assert.match(type, /^application\/problem\+json/, what);
    for (const key of ['type', 'title', 'status', 'detail']) assert.ok(key in body, `${what}: ${key}`);
    assert.is(body['status'], res.status, what);
  } else {
    assert.match(type, /^application\/json/, what);
    assert.type(body['error'], 'string', what);
    assert.type(body['error_description'], 'string', what);
  }
}

t('a method the route does not take → 405 with Allow, in the error body its route declares', async () => {
  for (const route of ctx.routes) {
    // A method no route of the path takes.
    const taken = new Set(ctx.routes.filter((r) => r.path === route.path).map((r) => r.method as string));
    const method = ['PATCH', 'PUT', 'POST', 'DELETE'].find((m) => !taken.has(m)) ?? 'PATCH';
    const res = await fetch(`${ctx.server.url}${concrete(route.path)}`, {
      method,
      headers: bearer(ctx.token),
    });
    const what = `${method} ${route.path}`;
    assert.is(res.status, 405, what);
    assert.ok((res.headers.get('allow') ?? '').length > 0, what);
    const declared: Kind = ctx.routes.find((r) => r.path === route.path)?.errorFormat ?? 'problem';
    await expectBody(res, declared, what);
  }
});

t(
  'a malformed request → 4xx: OAuth JSON on the routes declaring it and for authentication, else problem+json',
  async () => {
    for (const route of ctx.routes) {
      const path = concrete(route.path);
      const what = `${route.method} ${route.path}`;
      if (route.errorFormat === 'oauth' && route.method === 'POST' && route.access.kind !== 'bearer') {
        const res = await fetch(`${ctx.server.url}${path}`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: '{"grant_type":',
        });
        assert.is(res.status, 400, what);
        await expectBody(res, 'oauth', what);
      } else if (path.startsWith('/api/')) {
        const body = route.method === 'GET' ? undefined : '<not-json/>';
        const headers = { ...bearer(ctx.token), 'Content-Type': 'application/xml' };
        const res = await fetch(`${ctx.server.url}${path}?bogus=%00`, {
          method: route.method,
          headers,
          ...(body ? { body } : {}),
        });
        assert.ok(res.status === 400 || res.status === 415, `${what}: ${res.status}`);
        await expectBody(res, 'problem', what);
      } else if (path.startsWith('/app/') || route.access.kind === 'bearer') {
        const res = await fetch(`${ctx.server.url}${path}`, { headers: { Authorization: 'Bearer not.a.token' } });
        assert.is(res.status, 401, what);
        assert.match(res.headers.get('www-authenticate') ?? '', /^Bearer realm="troupe", error="invalid_token"/, what);
        await expectBody(res, 'oauth', what);
      }
    }
  },
);

t('authentication failures under /api speak OAuth JSON with a challenge', async () => {
  for (const route of ctx.routes.filter((r) => r.path.startsWith('/api/'))) {
    const res = await fetch(`${ctx.server.url}${concrete(route.path)}`, { method: route.method });
    assert.is(res.status, 401, route.path);
    assert.is(res.headers.get('www-authenticate'), 'Bearer realm="troupe"');
    await expectBody(res, 'oauth', route.path);
  }
});

t(
  'the OAuth endpoints declare OAuth errors: every client route, the authorization form, logout, token_key, UserInfo',
  () => {
    assert.equal(
      ctx.routes.filter((r) => r.errorFormat === 'oauth').map((r) => `${r.method} ${r.path}`),
      [
        'POST /oauth/token',
        'GET /oauth/authorize',
        'POST /oauth/authorize',
        'POST /oauth/authorize/consent',
        'GET /oauth/logout',
        'POST /oauth/logout',
        'POST /oauth/revoke',
        'POST /oauth/introspect',
        'POST /oauth/check_token',
        'GET /oauth/token_key',
        'GET /userinfo',
        'POST /userinfo',
      ],
    );
    for (const r of ctx.routes) if (r.access.kind === 'client') assert.is(r.errorFormat, 'oauth', r.path);
  },
);

t('a path no route has under /oauth → 404 problem+json (no route declares its body)', async () => {
  const res = await fetch(`${ctx.server.url}/oauth/nothing-here`);
  assert.is(res.status, 404);
  await expectBody(res, 'problem', '/oauth/nothing-here');
});

t.run();

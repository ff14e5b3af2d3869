/**
 * Walks every route the server registers (read off Koa's router, so a new route is walked without
 * editing this file) under every spelling a router or proxy might still take for it: other letter
 * cases, trailing and doubled slashes, percent-encoded letters and slashes, dot segments, HEAD for
 * every GET, origin-form and absolute-form request targets, over a raw socket. Without credentials,
 * no route that needs them ever answers 2xx, and nothing is written.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { routesOf, type RouteInfo } from '../../http/app.ts';
import { openReader, SERVICE_TABLES } from '../helpers/faults.ts';
import { rawRequest } from '../helpers/raw-http.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { spellings } from '../helpers/spellings.ts';
import { login } from '../helpers/tokens.ts';
import { send } from '../helpers/user-data.ts';

interface Ctx {
  server: TestServer;
  token: string;
  employeeId: string;
  userId: string;
}
const ctx = {} as Ctx;
const t = suite(
  'route walk: no route that needs credentials answers 2xx without them, however its path is spelled',
  ctx,
);

t.before(async () => {
  ctx.server = await startTestServer();
  ctx.token = (await login(ctx.server.url)).access_token;
  const employee = await send(ctx.server.url, 'POST', '/api/employee/create', {
    token: ctx.token,
    json: { name: 'Walk Er', dateOfBirth: '1980-01-01' },
  });
  ctx.employeeId = (employee.body as { id: string }).id;
  const user = await send(ctx.server.url, 'POST', '/api/user', {
    token: ctx.token,
    json: { name: 'Walk Er', email: 'walker@example.com' },
  });
  ctx.userId = (user.body as { id: string }).id;
});
t.after(async () => ctx.server?.close());

const needsCredentials = (r: RouteInfo): boolean => r.access.kind !== 'public';

/**
 * A request the route would accept with credentials: a body and query that pass validation, so
 * that a refusal can only come from the missing credentials. Routes not listed get `{}`.
 */
function validRequest(r: RouteInfo): { query: string; body: string; type: string } {
  const json = (v: unknown) => ({ query: '', body: JSON.stringify(v), type: 'application/json' });
  const form = (v: Record<string, string>) => ({
    query: '',
    body: new URLSearchParams(v).toString(),
    type: 'application/x-www-form-urlencoded',
  });
  const id = ctx.employeeId;
  const known: Record<string, { query: string; body: string; type: string }> = {
    'POST /oauth/token': form({ grant_type: 'password', username: 'john.doe', password: 'john-password' }),
    'POST /oauth/revoke': form({ token: ctx.token }),
    'POST /oauth/introspect': form({ token: ctx.token }),
    'POST /oauth/check_token': form({ token: ctx.token }),
    'GET /api/employee/create': { query: '?name=Mallory&dateOfBirth=1990-01-01', body: '', type: '' },
    'POST /api/employee/create': json({ name: 'Mallory', dateOfBirth: '1990-01-01' }),
    'POST /api/employee/search': json({}),
    'PUT /api/employee/update': { ...json({ name: 'Mallory' }), query: `?id=${id}` },
    'DELETE /api/employee/delete': { query: `?id=${id}`, body: '', type: '' },
    'POST /api/user': json({ name: 'Mallory', email: 'mallory@example.com' }),
    'PUT /api/user': json({ id: ctx.userId, name: 'Mallory' }),
    'DELETE /api/user': { query: `?id=${ctx.userId}`, body: '', type: '' },
    'GET /api/users/activity': { query: `?userId=${ctx.userId}`, body: '', type: '' },
    'POST /api/users/activity': json({ userId: ctx.userId, type: 'LOGIN' }),
  };
  return known[`${r.method} ${r.path}`] ?? (r.method === 'GET' ? { query: '', body: '', type: '' } : json({}));
}

const concrete = (path: string): string => path.replace(':id', ctx.employeeId).replace(':file', 'swagger-ui.css');

function counts(): string {
  const db = openReader(ctx.server.dataDir);
  try {
    return SERVICE_TABLES.map(
      (table) => `${table}=${JSON.stringify(db.prepare(`select * from ${table} order by 1`).all())}`,
    ).join('\n');
  } finally {
    db.close();
  }
}

t('the walk covers every route that needs credentials, each of them refused (401) as written', async () => {
  const secured = routesOf(ctx.server.troupe.app).filter(needsCredentials);
  assert.ok(secured.length >= 18, `only ${secured.length} routes need credentials`);
  for (const r of secured) {
    const { query, body, type } = validRequest(r);
    const res = await rawRequest(ctx.server.url, {
      method: r.method,
      target: `${concrete(r.path)}${query}`,
      body,
      headers: type ? [`Content-Type: ${type}`] : [],
    });
    assert.is(res.status, 401, `${r.method} ${r.path}`);
  }
});

t('every spelling, every method (HEAD for GET), origin and absolute form: never 2xx, nothing written', async () => {
  const before = counts();
  const { port } = new URL(ctx.server.url);
  const answered = new Map<number, number>();
  for (const r of routesOf(ctx.server.troupe.app).filter(needsCredentials)) {
    const { query, body, type } = validRequest(r);
    const methods = r.method === 'GET' ? ['GET', 'HEAD'] : [r.method];
    for (const spelling of spellings(concrete(r.path))) {
      for (const target of [`${spelling}${query}`, `http://127.0.0.1:${port}${spelling}${query}`]) {
        for (const method of methods) {
          const res = await rawRequest(ctx.server.url, {
            method,
            target,
            body,
            headers: type ? [`Content-Type: ${type}`] : [],
          });
          answered.set(res.status, (answered.get(res.status) ?? 0) + 1);
          if (res.status < 300 && res.status >= 200)
            assert.unreachable(`${method} ${target} (route ${r.method} ${r.path}) → ${res.status} without credentials`);
          if (res.status >= 500) assert.unreachable(`${method} ${target} → ${res.status}`);
        }
      }
    }
  }
  assert.is(counts(), before, 'a request without credentials changed stored rows');
  assert.ok((answered.get(401) ?? 0) > 100, `401s: ${answered.get(401) ?? 0}`);
});

t(
  'another letter case of the prefix (/APP/listAll, POST /API/employee/create) is refused without a token',
  async () => {
    assert.is((await fetch(`${ctx.server.url}/APP/listAll`)).status, 401);
    const res = await fetch(`${ctx.server.url}/API/employee/create`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: '{"name":"Mallory","dateOfBirth":"1990-01-01"}',
    });
    assert.is(res.status, 401);
    const withToken = await fetch(`${ctx.server.url}/APP/listAll`, {
      headers: { Authorization: `Bearer ${ctx.token}` },
    });
    assert.is(withToken.status, 404, 'paths are case-sensitive: another case is no route at all');
  },
);

t.run();

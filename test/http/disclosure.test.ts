/**
 * What an unauthenticated caller learns. OPTIONS under a secured prefix is refused without a token
 * like any other method (a real route and a missing one look the same), and with
 * `management.port` set, /health, /ready and /metrics are served there alone, on loopback.
 */
import * as assert from 'uvu/assert';
import { serverSuite } from '../helpers/server.ts';
import { bearer, login } from '../helpers/tokens.ts';

const options = serverSuite('HTTP: OPTIONS under secured prefixes');

options('OPTIONS without a token: 401 for a real route and for a missing one alike', async ({ server }) => {
  for (const path of ['/app/listAll', '/app/nothing-here', '/api/employee/create', '/api/nope']) {
    const res = await fetch(`${server.url}${path}`, { method: 'OPTIONS' });
    assert.is(res.status, 401, path);
    assert.is(res.headers.get('allow'), null, `${path}: Allow tells which methods exist`);
    assert.match(res.headers.get('www-authenticate') ?? '', /^Bearer/, path);
  }
});

options('OPTIONS with a token: 200 and Allow for a real route, 404 for a missing one', async ({ server }) => {
  const { access_token: token } = await login(server.url);
  const real = await fetch(`${server.url}/app/listAll`, { method: 'OPTIONS', headers: bearer(token) });
  assert.is(real.status, 200);
  assert.match(real.headers.get('allow') ?? '', /GET/);
  const missing = await fetch(`${server.url}/app/nothing-here`, { method: 'OPTIONS', headers: bearer(token) });
  assert.is(missing.status, 404);
});

options('OPTIONS outside secured prefixes needs no token', async ({ server }) => {
  assert.is((await fetch(`${server.url}/oauth/token`, { method: 'OPTIONS' })).status, 200);
  assert.is((await fetch(`${server.url}/health`, { method: 'OPTIONS' })).status, 200);
});

options.run();

const management = serverSuite('HTTP: management.port', { 'management.port': '0' });

management('/health, /ready and /metrics answer on the management port, on loopback', async ({ server }) => {
  const url = server.troupe.managementUrl;
  assert.ok(url, 'no management URL');
  assert.match(url, /^http:\/\/127\.0\.0\.1:\d+$/);
  assert.is.not(url, server.url);
  assert.is((await fetch(`${url}/health`)).status, 200);
  assert.is((await fetch(`${url}/ready`)).status, 200);
  const metrics = await fetch(`${url}/metrics`);
  assert.is(metrics.status, 200);
  assert.match(await metrics.text(), /^http_requests_total/m);
});

management('the main port no longer serves them; the management port serves nothing else', async ({ server }) => {
  for (const path of ['/health', '/ready', '/metrics'])
    assert.is((await fetch(`${server.url}${path}`)).status, 404, `main port ${path}`);
  const url = server.troupe.managementUrl ?? '';
  for (const path of ['/oauth/token', '/app/listAll', '/api/user', '/docs', '/openapi.json'])
    assert.is((await fetch(`${url}${path}`)).status, 404, `management port ${path}`);
  const { access_token: token } = await login(server.url);
  assert.is((await fetch(`${server.url}/app/listAll`, { headers: bearer(token) })).status, 200);
  const doc = (await (await fetch(`${server.url}/openapi.json`)).json()) as { paths: Record<string, unknown> };
  assert.not.ok('/metrics' in doc.paths, 'the main port describes /metrics');
});

management.run();

const unset = serverSuite('HTTP: management.port unset');
unset('by default /health, /ready and /metrics stay on the main port', async ({ server }) => {
  assert.is(server.troupe.managementUrl, undefined);
  for (const path of ['/health', '/ready', '/metrics'])
    assert.is((await fetch(`${server.url}${path}`)).status, 200, path);
});
unset.run();

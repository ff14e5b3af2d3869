import { Validator } from '@seriousme/openapi-schema-validator';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { routesOf } from '../../http/app.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

const ctx = {} as { server: TestServer; doc: { paths: Record<string, Record<string, unknown>> } & Record<string, unknown> };
const t = suite('OpenAPI description and /docs', ctx);
t.before(async () => {
  ctx.server = await startTestServer();
  ctx.doc = (await (await fetch(`${ctx.server.url}/openapi.json`)).json()) as typeof ctx.doc;
});
t.after(async () => ctx.server?.close());

t('GET /openapi.json › a valid OpenAPI 3.1 document', async () => {
  assert.is(ctx.doc['openapi'], '3.1.0');
  const validator = new Validator();
  const result = await validator.validate(ctx.doc);
  assert.ok(result.valid, JSON.stringify(result.errors, null, 2)?.slice(0, 2000));
  assert.is(validator.version, '3.1');
});

t('every route registered in Koa is described, and every described route is registered', () => {
  const registered = new Set(routesOf(ctx.server.troupe.app).map((r) => `${r.method} ${r.path.replace(/:([A-Za-z]+)/g, '{$1}')}`));
  registered.delete('GET /docs/assets/{file}');
  const described = new Set(Object.entries(ctx.doc.paths).flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`)));
  assert.equal([...registered].filter((r) => !described.has(r)), [], 'registered but not described');
  assert.equal([...described].filter((d) => !registered.has(d)), [], 'described but not registered');
  assert.ok(registered.size >= 26, `only ${registered.size} routes`);
});

t('request schemas come from the validators: the employee create body has the contract\'s limits', () => {
  const post = ctx.doc.paths['/api/employee/create']?.['post'] as { requestBody: { content: Record<string, { schema: { properties: Record<string, { maxLength?: number }>; additionalProperties: boolean } }> } };
  const schema = post.requestBody.content['application/json']?.schema;
  assert.is(schema?.properties['name']?.maxLength, 200);
  assert.is(schema?.additionalProperties, false);
});

t('GET /docs › a page that loads Swagger UI from this server (no CDN)', async () => {
  const res = await fetch(`${ctx.server.url}/docs`);
  assert.is(res.status, 200);
  const html = await res.text();
  assert.match(html, /src="\/docs\/assets\/swagger-ui-bundle\.js"/);
  assert.not.match(html, /https?:\/\//);
  for (const asset of ['swagger-ui-bundle.js', 'swagger-ui.css', 'init.js']) {
    assert.is((await fetch(`${ctx.server.url}/docs/assets/${asset}`)).status, 200, asset);
  }
  assert.is((await fetch(`${ctx.server.url}/docs/assets/package.json`)).status, 404);
  assert.is((await fetch(`${ctx.server.url}/docs/assets/..%2Fpackage.json`)).status, 404);
  for (const inherited of ['constructor', '__proto__', 'toString', 'hasOwnProperty']) {
    assert.is((await fetch(`${ctx.server.url}/docs/assets/${inherited}`)).status, 404, `${inherited} once was a 500`);
  }
});

t.run();

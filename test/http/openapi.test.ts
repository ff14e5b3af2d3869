import { Validator } from '@seriousme/openapi-schema-validator';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { STYLESHEET_PATH, THEMED_CSP } from '../../http/oauth/pages/themed-pages.ts';
import { buildDocument } from '../../http/openapi/document.ts';
import { routesOf, type RouteInfo } from '../../http/app.ts';
import { REPLY_ERRORS, type ReplyCode } from '../../http/problems.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

const ctx = {} as {
  server: TestServer;
  doc: { paths: Record<string, Record<string, unknown>> } & Record<string, unknown>;
};
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

type Responses = Record<string, { headers?: Record<string, unknown>; content?: Record<string, unknown> }>;
const operationOf = (r: RouteInfo) =>
  ctx.doc.paths[r.path.replace(/:([A-Za-z]+)/g, '{$1}')]?.[r.method.toLowerCase()] as
    { summary?: string; responses: Responses; requestBody?: { content: Record<string, unknown> } } | undefined;

t('every mounted route but the /docs assets is described, with a summary, and nothing else is', () => {
  const routes = routesOf(ctx.server.troupe.app);
  for (const r of routes) {
    const what = `${r.method} ${r.path}`;
    if (r.doc.undocumented) assert.is(operationOf(r), undefined, what);
    else assert.ok((operationOf(r)?.summary ?? '').length > 10, what);
  }
  assert.equal(
    routes.filter((r) => r.doc.undocumented).map((r) => r.path),
    ['/docs/assets/:file'],
  );
  const described = Object.values(ctx.doc.paths).flatMap((ops) => Object.keys(ops));
  assert.is(described.length, routes.length - 1);
  assert.ok(routes.length >= 27, `only ${routes.length} routes`);
});

t('a route that takes a bearer token or a client declares its 401 with the challenge', () => {
  const guarded = routesOf(ctx.server.troupe.app).filter((r) => r.access.kind !== 'public');
  for (const r of guarded) {
    const unauthorized = operationOf(r)?.responses['401'];
    assert.ok(unauthorized?.headers?.['WWW-Authenticate'], `${r.method} ${r.path}`);
    assert.ok(unauthorized?.content?.['application/json'], `${r.method} ${r.path}: an OAuth error body`);
  }
  assert.ok(guarded.length >= 20);
});

t("self-service routes say they are for the service's own clients, and declare that 403 with its challenge", () => {
  const selfService = routesOf(ctx.server.troupe.app).filter((r) => r.access.kind === 'bearer' && r.access.firstParty);
  assert.equal(
    selfService.map((r) => `${r.method} ${r.path}`),
    ['PUT /app/me/password', 'GET /app/me/consents', 'DELETE /app/me/consents/:clientId'],
  );
  for (const r of selfService) {
    const what = `${r.method} ${r.path}`;
    const op = operationOf(r) as { description?: string; responses: Record<string, { description?: string }> };
    assert.match(op.description ?? '', /service's own applications[\s\S]*403 `insufficient_scope`/, what);
    assert.match(op.responses['403']?.description ?? '', /`insufficient_scope`/, what);
    assert.ok(operationOf(r)?.responses['403']?.headers?.['WWW-Authenticate'], what);
  }
});

t('a route that takes a JSON body declares its refusals: 400, 413 and 415', () => {
  const withJson = routesOf(ctx.server.troupe.app).filter(
    (r) => operationOf(r)?.requestBody?.content['application/json'] !== undefined,
  );
  for (const r of withJson)
    for (const status of ['400', '413', '415'])
      assert.ok(operationOf(r)?.responses[status], `${r.method} ${r.path} ${status}`);
  assert.ok(withJson.length >= 10);
});

t("each operation's security is the access its route declares (the one the server checks)", () => {
  const expected = (access: RouteInfo['access']): unknown[] => {
    if (access.kind === 'public') return [];
    if (access.kind === 'client') return [{ clientBasic: [] }];
    return [{ bearer: [] }, { oauth2: access.kind === 'bearer' && access.scope !== undefined ? [access.scope] : [] }];
  };
  const routes = routesOf(ctx.server.troupe.app).filter((r) => !r.path.includes(':file'));
  for (const r of routes) {
    const op = ctx.doc.paths[r.path.replace(/:([A-Za-z]+)/g, '{$1}')]?.[r.method.toLowerCase()] as
      { security: unknown[] } | undefined;
    assert.equal(op?.security, expected(r.access), `${r.method} ${r.path}`);
  }
  assert.equal(
    routes.filter((r) => r.access.kind === 'role').map((r) => r.path),
    ['/app/admin', '/app/user'],
  );
  assert.equal((ctx.doc.paths['/api/employee/create']?.['post'] as { security: unknown }).security, [
    { bearer: [] },
    { oauth2: ['write'] },
  ]);
});

t("each operation's 405 and 500 bodies are the error format its route declares", () => {
  const routes = routesOf(ctx.server.troupe.app).filter((r) => !r.path.includes(':file'));
  for (const r of routes) {
    const op = ctx.doc.paths[r.path.replace(/:([A-Za-z]+)/g, '{$1}')]?.[r.method.toLowerCase()] as
      { responses: Record<string, { content?: Record<string, { schema: { required?: string[] } }> }> } | undefined;
    for (const status of ['405', '500']) {
      const content = op?.responses[status]?.content ?? {};
      const what = `${r.method} ${r.path} ${status}`;
      if (r.errorFormat === 'oauth') {
        assert.equal(Object.keys(content), ['application/json'], what);
        assert.ok(content['application/json']?.schema.required?.includes('error'), what);
      } else assert.equal(Object.keys(content), ['application/problem+json'], what);
    }
  }
  assert.ok(routes.some((r) => r.errorFormat === 'oauth') && routes.some((r) => r.errorFormat === 'problem'));
});

t('every reply code a response names is answered with that status (the one table of reply codes)', () => {
  const named: string[] = [];
  for (const [path, byMethod] of Object.entries(ctx.doc.paths)) {
    for (const [method, op] of Object.entries(byMethod)) {
      const responses = (op as { responses: Record<string, { description?: string }> }).responses;
      for (const [status, response] of Object.entries(responses)) {
        for (const [, code = ''] of (response.description ?? '').matchAll(
          /`([a-z_]+\.[a-z_]+|internal|unavailable)`/g,
        )) {
          if (!Object.hasOwn(REPLY_ERRORS, code)) continue;
          named.push(code);
          assert.is(String(REPLY_ERRORS[code as ReplyCode].status), status, `${method} ${path}: ${code}`);
        }
      }
    }
  }
  // The account operations name most of their codes; a description that stopped naming them would pass unseen.
  for (const code of [
    'account.username_taken',
    'account.email_taken',
    'account.last_admin',
    'password.invalid',
    'role.name_taken',
  ])
    assert.ok(named.includes(code), `${code} is named by some response`);
});

t("each operation's summary says what the caller gets, in the caller's words", () => {
  const ops = Object.entries(ctx.doc.paths).flatMap(([path, byMethod]) =>
    Object.entries(byMethod).map(([method, op]) => ({
      what: `${method} ${path}`,
      summary: (op as { summary?: string }).summary,
    })),
  );
  for (const { what, summary } of ops) {
    assert.type(summary, 'string', what);
    assert.not.match(summary ?? '', /\b(handler|actor|Spring|BCrypt|keyset|Koa|zod|SQLite|MongoDB|HEAD)\b/i, what);
  }
  assert.ok(ops.length >= 26);
});

t('with security.protect-api=false the /api operations need no token, in the document as on the wire', async () => {
  const open = await startTestServer({ 'security.protect-api': 'false' });
  try {
    const doc = (await (await fetch(`${open.url}/openapi.json`)).json()) as typeof ctx.doc;
    assert.equal((doc.paths['/api/employee/search']?.['post'] as { security: unknown }).security, []);
    assert.equal((doc.paths['/app/listAll']?.['get'] as { security: unknown }).security, [
      { bearer: [] },
      { oauth2: [] },
    ]);
    const res = await fetch(`${open.url}/api/employee/search`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: '{}',
    });
    assert.is(res.status, 200);
  } finally {
    await open.close();
  }
});

t("request schemas come from the validators: the employee create body has the contract's limits", () => {
  const post = ctx.doc.paths['/api/employee/create']?.['post'] as {
    requestBody: {
      content: Record<
        string,
        { schema: { properties: Record<string, { maxLength?: number }>; additionalProperties: boolean } }
      >;
    };
  };
  const schema = post.requestBody.content['application/json']?.schema;
  assert.is(schema?.properties['name']?.maxLength, 200);
  assert.is(schema?.additionalProperties, false);
});

t("GET /docs › cannot be framed: CSP frame-ancestors 'none' beside its own sources, X-Frame-Options DENY", async () => {
  for (const method of ['GET', 'HEAD']) {
    const res = await fetch(`${ctx.server.url}/docs`, { method });
    assert.is(res.status, 200);
    const csp = (res.headers.get('content-security-policy') ?? '').split(';').map((d) => d.trim());
    assert.ok(csp.includes("frame-ancestors 'none'"), csp.join('; '));
    for (const kept of ["default-src 'self'", "script-src 'self'", "connect-src 'self'"])
      assert.ok(csp.includes(kept), `${kept} is kept`);
    assert.is(res.headers.get('x-frame-options'), 'DENY', method);
  }
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

t('GET /docs/oauth2-redirect.html › the code comes back to a page of Swagger UI’s script, kept nowhere', async () => {
  const res = await fetch(`${ctx.server.url}/docs/oauth2-redirect.html?code=x&state=y`);
  assert.is(res.status, 200);
  assert.match(await res.text(), /<script src="\/docs\/assets\/oauth2-redirect\.js"><\/script>/);
  const csp = (res.headers.get('content-security-policy') ?? '').split(';').map((d) => d.trim());
  for (const kept of ["default-src 'self'", "script-src 'self'", "frame-ancestors 'none'"])
    assert.ok(csp.includes(kept), `${kept} is kept`);
  assert.is(res.headers.get('x-frame-options'), 'DENY');
  assert.is(res.headers.get('cache-control'), 'no-store');
  assert.is(res.headers.get('referrer-policy'), 'no-referrer');
  const script = await fetch(`${ctx.server.url}/docs/assets/oauth2-redirect.js`);
  assert.is(script.status, 200);
  assert.match(await script.text(), /swaggerUIRedirectOauth2/);
});

t('a bearer route takes a pasted token (http bearer, JWT) or one got by signing in (the password grant)', () => {
  const schemes = (ctx.doc['components'] as { securitySchemes: Record<string, Record<string, unknown>> })
    .securitySchemes;
  assert.equal(schemes['bearer'], {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT',
    description: schemes['bearer']?.['description'],
  });
  type Flow = { authorizationUrl?: string; tokenUrl: string; scopes: Record<string, string> };
  const flows = schemes['oauth2']?.['flows'] as { password: Flow; authorizationCode?: Flow };
  assert.is(flows.password.tokenUrl, '/oauth/token');
  assert.equal(Object.keys(flows.password.scopes), ['read', 'write']);
  // The code flow (with PKCE: the page's initOAuth) of the original client, which has the grant by default.
  assert.equal(flows.authorizationCode, {
    authorizationUrl: '/oauth/authorize',
    tokenUrl: '/oauth/token',
    scopes: { read: 'read', write: 'write' },
  });
  assert.equal(
    Object.keys(flows),
    ['authorizationCode', 'password'],
    'the password grant last, where the dialog opens',
  );
  assert.equal(Object.keys(schemes), ['oauth2', 'bearer', 'clientBasic']);
});

t(
  "the Authorize dialog's hint says where the client secret comes from, naming the development one only while it is used",
  () => {
    const schemes = (ctx.doc['components'] as { securitySchemes: Record<string, Record<string, unknown>> })
      .securitySchemes;
    const development = String(schemes['oauth2']?.['description']);
    assert.match(development, /`client_secret`/);
    assert.match(
      development,
      /while `security\.jwt\.client-secret` is unset it is the development secret, `troupe-secret`/,
    );
    const configured = buildDocument([], {
      version: '1',
      scopes: ['read'],
      codeFlow: true,
      clientSecret: 'configured',
    });
    const hint = String(
      (configured['components'] as { securitySchemes: Record<string, Record<string, unknown>> }).securitySchemes[
        'oauth2'
      ]?.['description'],
    );
    assert.match(hint, /BCrypt hash `security\.jwt\.client-secret` holds/);
    assert.not.match(hint, /troupe-secret/);
  },
);

t(
  'GET / › JSON links to /docs, /openapi.json, the OAuth metadata and the health checks, each served here',
  async () => {
    for (const accept of [undefined, '*/*', 'application/json']) {
      const res = await fetch(`${ctx.server.url}/`, { headers: accept === undefined ? {} : { Accept: accept } });
      assert.is(res.status, 200, accept);
      assert.match(res.headers.get('content-type') ?? '', /^application\/json/, accept);
      assert.match(res.headers.get('vary') ?? '', /Accept/);
      const body = (await res.json()) as { name: string; links: Record<string, string> };
      assert.equal(body, {
        name: 'troupe',
        links: {
          docs: '/docs',
          openapi: '/openapi.json',
          authorizationServer: '/.well-known/oauth-authorization-server',
          openidConfiguration: '/.well-known/openid-configuration',
          jwks: '/.well-known/jwks.json',
          health: '/health',
          ready: '/ready',
        },
      });
      for (const path of Object.values(body.links))
        assert.is((await fetch(`${ctx.server.url}${path}`)).status, 200, path);
    }
    const op = ctx.doc.paths['/']?.['get'] as { security: unknown[]; tags: string[] } | undefined;
    assert.equal(op?.security, [], 'public, as the other operations routes');
    assert.equal(op?.tags, ['operations']);
  },
);

t('GET / › a browser gets the links as a page it may not frame', async () => {
  const res = await fetch(`${ctx.server.url}/`, {
    headers: { Accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' },
  });
  assert.is(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /^text\/html/);
  assert.match(res.headers.get('content-security-policy') ?? '', /frame-ancestors 'none'/);
  const html = await res.text();
  for (const path of [
    '/docs',
    '/openapi.json',
    '/.well-known/oauth-authorization-server',
    '/.well-known/openid-configuration',
    '/health',
  ])
    assert.ok(html.includes(`href="${path}"`), path);
  assert.not.match(html, /secret|password/i);
});

t(
  "GET / › the page has the sign-in pages' look and a line on what each link is for, in the browser's language",
  async () => {
    const get = (language: string) =>
      fetch(`${ctx.server.url}/`, { headers: { Accept: 'text/html', 'Accept-Language': language } });
    const res = await get('en');
    assert.is(res.headers.get('content-security-policy'), THEMED_CSP);
    const html = await res.text();
    assert.ok(html.includes(`<link rel="stylesheet" href="${STYLESHEET_PATH}">`), 'the themed stylesheet');
    assert.match(html, /<main class="card">/);
    assert.match(html, /<p class="product">troupe<\/p>/);
    assert.not.match(html, /<script|style=/);
    const items = [...html.matchAll(/<li>\s*<a href="([^"]+)"><code>\1<\/code><\/a>\s*<p class="hint">([^<]+)<\/p>/g)];
    assert.equal(
      items.map(([, path]) => path),
      [
        '/docs',
        '/openapi.json',
        '/.well-known/oauth-authorization-server',
        '/.well-known/openid-configuration',
        '/.well-known/jwks.json',
        '/health',
        '/ready',
      ],
    );
    assert.match(items[0]?.[2] ?? '', /try every route/);
    assert.is((await fetch(`${ctx.server.url}${STYLESHEET_PATH}`)).status, 200, 'the stylesheet is served');
    const german = await (await get('de')).text();
    assert.match(german, /<html lang="de">/);
    assert.match(german, /<h1>Erste Schritte<\/h1>/);
  },
);

t('GET / › with a management port the health checks are not linked from the main one', async () => {
  const apart = await startTestServer({ 'management.port': '0' });
  try {
    const body = (await (await fetch(`${apart.url}/`)).json()) as { links: Record<string, string> };
    assert.is(body.links['health'], undefined);
    assert.is(body.links['docs'], '/docs');
  } finally {
    await apart.close();
  }
});

t.run();

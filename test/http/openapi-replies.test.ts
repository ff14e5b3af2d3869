/**
 * Replies by code: each route lists the reply codes its handler can answer, and the API
 * description takes each one's status, body and words from the one reply table, adding what the
 * route's access refuses (401, 403, 429, 503) and what its declared input does (400, 413, 415).
 * A throttled login is a reply code as every other: `login.throttled`, answered 429.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { routesOf, type RouteInfo } from '../../http/app.ts';
import { HttpProblem, OAuthError, REPLY_ERRORS, replyError } from '../../http/problems.ts';
import { LOGINS, PASSWORD_CHECKS, throttled } from '../../src/security/login-attempts.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

interface Response {
  readonly description: string;
  readonly headers?: Record<string, unknown>;
  readonly content?: Record<string, unknown>;
}
const ctx = {} as {
  server: TestServer;
  doc: { paths: Record<string, Record<string, { responses: Record<string, Response> }>> };
};
const t = suite('OpenAPI: replies by code', ctx);
t.before(async () => {
  ctx.server = await startTestServer();
  ctx.doc = (await (await fetch(`${ctx.server.url}/openapi.json`)).json()) as typeof ctx.doc;
});
t.after(async () => ctx.server?.close());

const responsesOf = (r: RouteInfo): Record<string, Response> =>
  ctx.doc.paths[r.path.replace(/:([A-Za-z]+)/g, '{$1}')]?.[r.method.toLowerCase()]?.responses ?? {};
const routes = (): RouteInfo[] => routesOf(ctx.server.troupe.app).filter((r) => r.doc.undocumented !== true);

t("each code a route lists is documented under its table status, in the route's error body", () => {
  let listed = 0;
  for (const r of routes()) {
    for (const error of r.doc.errors ?? []) {
      const code = typeof error === 'string' ? error : error[0];
      const row = REPLY_ERRORS[code];
      const reply = responsesOf(r)[String(row.status)];
      const what = `${r.method} ${r.path} ${code}`;
      assert.ok(reply, what);
      const name =
        r.errorFormat === 'oauth' ? ('oauth' in row ? row.oauth : undefined) : 'problem' in row ? row.problem : code;
      if (name !== undefined) assert.ok(reply?.description.includes(`\`${name}\``), `${what}: ${reply?.description}`);
      const type = r.errorFormat === 'oauth' ? 'application/json' : 'application/problem+json';
      assert.ok(reply?.content?.[type], `${what} in ${type}`);
      listed++;
    }
  }
  assert.ok(listed >= 30, `${listed} codes listed`);
});

t('the words of a code are the table’s unless the route says its own', () => {
  const routeOf = (method: string, path: string) => routes().find((r) => r.method === method && r.path === path);
  const create = routeOf('POST', '/app/admin/users');
  assert.ok(create);
  const conflict = create && responsesOf(create)['409']?.description;
  assert.ok(conflict?.includes(REPLY_ERRORS['account.username_taken'].description), conflict);
  const remove = routeOf('DELETE', '/app/admin/users/:id');
  assert.ok(remove && responsesOf(remove)['409']?.description.includes('cannot be deleted'));
  // A reply code the route lists, that its old hand-written rows left out.
  const revoke = routeOf('POST', '/oauth/revoke');
  assert.ok(revoke && responsesOf(revoke)['400']?.description.includes('`unauthorized_client`'));
});

t("every route's access adds its refusals: a token route its 401 with a challenge and its 503", () => {
  for (const r of routes()) {
    const responses = responsesOf(r);
    const what = `${r.method} ${r.path}`;
    if (r.access.kind === 'bearer' || r.access.kind === 'role') {
      assert.ok(responses['401']?.headers?.['WWW-Authenticate'], what);
      assert.ok(responses['503']?.headers?.['Retry-After'], what);
      if (r.access.kind === 'bearer' && r.access.scope !== undefined)
        assert.ok(responses['403']?.description.includes('`insufficient_scope`'), what);
    } else if (r.access.kind === 'client') {
      assert.ok(responses['401']?.description.includes('`invalid_client`'), what);
      assert.ok(responses['429']?.headers?.['Retry-After'], what);
      assert.ok(responses['503']?.description.includes('`temporarily_unavailable`'), what);
    } else assert.is(responses['401'], undefined, what);
  }
});

t('a status both the access check and the route answer shows both bodies', () => {
  const list = routes().find((r) => r.method === 'GET' && r.path === '/app/admin/users');
  const bad = list && responsesOf(list)['400'];
  assert.equal(Object.keys(bad?.content ?? {}).sort(), ['application/json', 'application/problem+json']);
  assert.ok(bad?.description.includes('`validation`') && bad.description.includes('`invalid_request`'));
});

t('login.throttled is a reply code: 429 with Retry-After, too_many_requests on the wire', () => {
  const asProblem = replyError(throttled({ retryAfter: 7, inFlight: false }, PASSWORD_CHECKS));
  assert.ok(asProblem instanceof HttpProblem);
  assert.equal(
    [asProblem.status, asProblem instanceof HttpProblem && asProblem.code, asProblem.message, asProblem.headers],
    [429, 'too_many_requests', 'Too many password checks; retry in 7 seconds', { 'Retry-After': '7' }],
  );
  const inFlight = replyError(throttled({ retryAfter: 2, inFlight: true }, LOGINS));
  assert.is(inFlight.message, 'Too many logins in flight; retry in 2 seconds');
  assert.not.ok(inFlight instanceof OAuthError, 'the route’s error body decides its form');
  for (const [method, path] of [
    ['POST', '/oauth/token'],
    ['PUT', '/app/me/password'],
  ] as const) {
    const r = routes().find((x) => x.method === method && x.path === path);
    const reply = r && responsesOf(r)['429'];
    assert.ok(reply?.headers?.['Retry-After'], `${method} ${path}`);
    assert.ok(reply?.description.includes('`too_many_requests`'), `${method} ${path}`);
  }
});

t.run();

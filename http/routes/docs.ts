import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { HttpProblem } from '../problems.ts';
import { z } from 'zod';
import { problem } from '../openapi/replies.ts';
import { route, type Route } from '../route-table.ts';
import { PUBLIC } from '../guards.ts';
import { resourcePath } from '../validation.ts';

export interface DocsRouteDeps {
  /** The OpenAPI document; asked for once, on the first request (it describes these routes too). */
  readonly document: () => Readonly<Record<string, unknown>>;
  /** What the sign-in of the Authorize dialog is filled in with: the configured client's id (never its secret) and scopes. */
  readonly oauth: { readonly clientId: string; readonly scopes: readonly string[] };
}

/**
 * The only files served from swagger-ui-dist (installed locally: no CDN), with their types. A Map,
 * not an object literal: a request for `constructor` or `__proto__` must not find an inherited key.
 */
const noSuchAsset = (): HttpProblem => new HttpProblem(404, 'not_found', 'No such asset');
const ASSETS: ReadonlyMap<string, string> = new Map([
  ['swagger-ui.css', 'text/css; charset=utf-8'],
  ['swagger-ui-bundle.js', 'application/javascript; charset=utf-8'],
  ['favicon-32x32.png', 'image/png'],
  ['oauth2-redirect.js', 'application/javascript; charset=utf-8'],
]);

const tag = 'operations';

/**
 * Swagger UI's start: the Authorize dialog's sign-in (the password grant) comes with the client id
 * and scopes filled in, and the dialog opens at it, its username focused (Swagger UI puts the
 * other schemes, a token pasted as it is among them, above); a scheme once authorized stays in view. The code flow sends a PKCE challenge
 * and comes back to `/docs/oauth2-redirect.html` on this page's origin (the one redirect URI
 * the client has, at the issuer), which hands the code to this window. The authorization is not persisted
 * (`persistAuthorization` stays off): a token kept in the browser's storage would outlive the
 * page and the visit.
 */
const init = (oauth: DocsRouteDeps['oauth']): string => `window.addEventListener('load', function () {
  var redirect = location.origin + '/docs/oauth2-redirect.html';
  window.ui = SwaggerUIBundle({ url: '/openapi.json', dom_id: '#swagger-ui', deepLinking: true, displayRequestDuration: true, oauth2RedirectUrl: redirect });
  window.ui.initOAuth(${JSON.stringify({ clientId: oauth.clientId, scopes: oauth.scopes, usePkceWithAuthorizationCodeGrant: true })});
  // The Authorize dialog lists the sign-in last: each time it opens, it opens there, unless a
  // scheme is authorized already. Once open it is left where the person is, but for a scheme that
  // turns "Authorized", which is brought into view: the dialog re-renders then, and the sign-in's
  // field with it, which must not pull the answer out of sight. Both flows of one scheme turn
  // "Authorized" together: the one shown is the one the person used last.
  var used = null;
  var note = function (event) {
    var block = event.target instanceof Element ? event.target.closest('.auth-container') : null;
    var heading = block === null ? null : block.querySelector('h4');
    if (heading !== null) used = heading.textContent;
  };
  document.addEventListener('focusin', note, true);
  document.addEventListener('click', note, true);
  var isAuthorized = function (block) {
    return Array.prototype.some.call(block.querySelectorAll('h6'), function (h) { return h.textContent === 'Authorized'; });
  };
  var authorizedIn = function (root) {
    var blocks = Array.prototype.filter.call(root.querySelectorAll('.auth-container'), isAuthorized);
    var mine = blocks.filter(function (b) { var h = b.querySelector('h4'); return h !== null && h.textContent === used; });
    return mine[0] || blocks[0] || null;
  };
  var dialog = null;
  var shown = null;
  new MutationObserver(function () {
    var open = document.querySelector('.dialog-ux');
    var done = open === null ? null : authorizedIn(open);
    var key = done === null ? null : done.querySelector('h4').textContent;
    if (open !== dialog) {
      dialog = open;
      shown = key;
      var field = document.getElementById('oauth_username');
      if (done !== null) done.scrollIntoView({ block: 'start' });
      else if (field !== null) {
        field.scrollIntoView({ block: 'center' });
        field.focus();
      }
      return;
    }
    if (key !== shown) {
      shown = key;
      if (done !== null) done.scrollIntoView({ block: 'start' });
    }
  }).observe(document.body, { childList: true, subtree: true });
});
`;

const PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>troupe API</title>
  <link rel="icon" type="image/png" href="/docs/assets/favicon-32x32.png">
  <link rel="stylesheet" href="/docs/assets/swagger-ui.css">
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="/docs/assets/swagger-ui-bundle.js"></script>
  <script src="/docs/assets/init.js"></script>
</body>
</html>
`;

/**
 * Where the code flow of the Authorize dialog comes back to: Swagger UI's own script (served as an
 * asset, as its bundle is) reads the code and hands it to the window that opened this one.
 */
const REDIRECT_PAGE = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>troupe API: signing in</title></head>
<body>
  <script src="/docs/assets/oauth2-redirect.js"></script>
</body>
</html>
`;

/**
 * The page's own sources, and no framing (as the sign-in page): a page that "tries out" calls
 * with the visitor's token must not be laid under another site's clicks. `X-Frame-Options` says
 * the same to browsers that predate `frame-ancestors`.
 */
const CSP =
  "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; script-src 'self'; connect-src 'self'; frame-ancestors 'none'";

/** GET /openapi.json and GET /docs (Swagger UI from local files). */
export function docsRoutes(deps: DocsRouteDeps): Route[] {
  const dir = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
  const cache = new Map<string, Buffer>();
  let documentJson: string | undefined; // the same for every request: serialised once
  const initJs = init(deps.oauth);
  /** What each of these routes is: a public read of the service's description. */
  const open = { method: 'GET', access: PUBLIC, tag } as const;
  /** A route that answers one whole document: its only reply is 200. */
  const whole = <S extends z.ZodType>(
    path: string,
    summary: string,
    reply: { readonly description: string; readonly schema: S; readonly type?: string },
  ) => ({ ...open, path, summary, replies: { 200: reply } });
  /** An HTML page of /docs: its sources only, never framed, with `headers` besides. */
  const htmlPage = (path: string, summary: string, body: string, headers: Record<string, string> = {}): Route =>
    route(whole(path, summary, { description: 'HTML', schema: z.string(), type: 'text/html' }), async (ctx) => {
      ctx.set({ 'Content-Security-Policy': CSP, 'X-Frame-Options': 'DENY', ...headers });
      ctx.type = 'text/html; charset=utf-8';
      ctx.body = body;
    });
  return [
    route(
      whole('/openapi.json', 'This API description (OpenAPI 3.1)', {
        description: 'OpenAPI 3.1',
        schema: z.record(z.string(), z.unknown()),
      }),
      async function openapi(ctx) {
        documentJson ??= JSON.stringify(deps.document());
        ctx.type = 'application/json; charset=utf-8';
        ctx.body = documentJson;
      },
    ),
    htmlPage('/docs', 'This API description as a page to browse and try', PAGE),
    // Its address carries the code: not kept, and not sent on as a referrer.
    htmlPage('/docs/oauth2-redirect.html', 'Where the Authorize of /docs comes back to with a code', REDIRECT_PAGE, {
      'Cache-Control': 'no-store',
      'Referrer-Policy': 'no-referrer',
    }),
    route(
      {
        ...open,
        path: '/docs/assets/:file',
        summary: 'A file of the /docs page',
        params: resourcePath(z.object({ file: z.enum(['init.js', ...ASSETS.keys()]) }), noSuchAsset),
        replies: { 200: { description: 'The file' }, 404: problem('No such asset') },
        undocumented: true,
      },
      async function docsAsset(ctx, { params: { file } }) {
        if (file === 'init.js') {
          ctx.type = ASSETS.get('swagger-ui-bundle.js') ?? '';
          ctx.body = initJs;
          return;
        }
        const type = ASSETS.get(file);
        if (type === undefined) throw noSuchAsset();
        if (!cache.has(file)) cache.set(file, readFileSync(join(dir, file)));
        ctx.set('Cache-Control', 'public, max-age=3600');
        ctx.type = type;
        ctx.body = cache.get(file);
      },
    ),
  ];
}

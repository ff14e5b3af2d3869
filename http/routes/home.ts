import { z } from 'zod';
import { route, type Route } from '../route-table.ts';
import { PUBLIC } from '../guards.ts';

export interface HomeRouteDeps {
  /** The paths the app serves (read on each request: the index is built with the table it lists). */
  readonly served: () => ReadonlySet<string>;
}

/** What the index may point to, by the name its JSON gives each: each listed only when this port serves it. */
const LINKS: readonly (readonly [name: string, path: string, what: string])[] = [
  ['docs', '/docs', 'the API, to browse and try (Swagger UI)'],
  ['openapi', '/openapi.json', 'the API description (OpenAPI 3.1)'],
  ['authorizationServer', '/.well-known/oauth-authorization-server', 'the OAuth 2.0 server metadata (RFC 8414)'],
  [
    'openidConfiguration',
    '/.well-known/openid-configuration',
    'the OpenID Provider metadata (OpenID Connect Discovery 1.0), with UserInfo',
  ],
  ['jwks', '/.well-known/jwks.json', 'the public keys that verify access tokens'],
  ['health', '/health', 'whether the server runs'],
  ['ready', '/ready', 'whether the server can serve requests'],
];

const Index = z
  .object({
    name: z.literal('troupe'),
    links: z.record(z.string(), z.string()).meta({ description: 'Name → path on this server' }),
  })
  .meta({ title: 'Index' });

/** No script, no style, no framing: a list of links. */
const CSP = "default-src 'none'; frame-ancestors 'none'";

function page(links: readonly (readonly [string, string, string])[]): string {
  const items = links.map(([, path, what]) => `    <li><a href="${path}">${path}</a>: ${what}</li>`).join('\n');
  return `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>troupe</title>
</head>
<body>
  <h1>troupe</h1>
  <ul>
${items}
  </ul>
</body>
</html>
`;
}

/** GET /: an index of the service, HTML to a browser and JSON to anyone else. */
export function homeRoutes(deps: HomeRouteDeps): Route[] {
  return [
    route(
      {
        method: 'GET',
        path: '/',
        access: PUBLIC,
        tag: 'operations',
        summary: 'Where to start: links to the API description, the OAuth and OpenID metadata and the health checks',
        replies: {
          200: {
            description: 'The links, as JSON; as an HTML page to a request that prefers `text/html` (a browser)',
            schema: Index,
            alternative: { type: 'text/html', schema: z.string() },
            headers: ['Vary'],
          },
        },
      },
      async function home(ctx) {
        const served = deps.served();
        const links = LINKS.filter(([, path]) => served.has(path));
        ctx.vary('Accept');
        if (ctx.accepts('json', 'html') === 'html') {
          ctx.set({ 'Content-Security-Policy': CSP, 'X-Frame-Options': 'DENY' });
          ctx.type = 'text/html; charset=utf-8';
          ctx.body = page(links);
          return;
        }
        ctx.body = { name: 'troupe', links: Object.fromEntries(links.map(([name, path]) => [name, path])) };
      },
    ),
  ];
}

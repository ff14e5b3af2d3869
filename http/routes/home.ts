import { z } from 'zod';
import { route, type Route } from '../route-table.ts';
import { PUBLIC } from '../guards.ts';
import type { Pages } from '../oauth/page-views.ts';

export interface HomeRouteDeps {
  /** The paths the app serves (read on each request: the index is built with the table it lists). */
  readonly served: () => ReadonlySet<string>;
  /** The themed pages: the index is one of them, in the sign-in pages' look and languages. */
  readonly pages: Pages;
}

/**
 * What the index may point to, by the name its JSON gives each: each listed only when this port
 * serves it. The page says what each is for in the person's language (`index.link.<name>`).
 */
const LINKS: readonly (readonly [name: string, path: string])[] = [
  ['docs', '/docs'],
  ['openapi', '/openapi.json'],
  ['authorizationServer', '/.well-known/oauth-authorization-server'],
  ['openidConfiguration', '/.well-known/openid-configuration'],
  ['jwks', '/.well-known/jwks.json'],
  ['health', '/health'],
  ['ready', '/ready'],
];

const Index = z
  .object({
    name: z.literal('troupe'),
    links: z.record(z.string(), z.string()).meta({ description: 'Name → path on this server' }),
  })
  .meta({ title: 'Index' });

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
          // The sign-in pages' policy: this server's stylesheet and logo, no script, no framing.
          ctx.set({ 'Content-Security-Policy': deps.pages.csp, 'X-Frame-Options': 'DENY' });
          ctx.type = 'text/html; charset=utf-8';
          ctx.body = deps.pages.index(
            { links: links.map(([name, path]) => ({ name, path })) },
            { acceptLanguage: ctx.get('Accept-Language') },
          );
          return;
        }
        ctx.body = { name: 'troupe', links: Object.fromEntries(links.map(([name, path]) => [name, path])) };
      },
    ),
  ];
}

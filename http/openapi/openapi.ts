/** The OpenAPI document of the services this configuration serves, derived from the routes as mounted. */
import { readFileSync } from 'node:fs';
import { DEV_CLIENT_SECRET_HASH, type Config } from '../../src/config.ts';
import { docsCodeFlow } from '../../src/security/docs-client.ts';
import { type RouteInfo, type Tag } from '../route-table.ts';
import { buildDocument, type DescribedRoute } from './document.ts';

const VERSION = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

/** The order of the document's operations: by service, each in the order its routes are declared. */
const TAG_ORDER: readonly Tag[] = ['secured', 'employee', 'userdata', 'operations'];

/**
 * The document of the routes as mounted (the management paths are on the management port when it
 * is set, and so not here): each operation is its route's own declaration, the one that is checked,
 * validated and rendered, so the two cannot drift apart.
 */
export function openApiFor(config: Config, routes: readonly RouteInfo[]): Record<string, unknown> {
  const { enabled, jwt } = config.security;
  const described = routes
    .filter((r) => r.doc.undocumented !== true)
    .map((r): DescribedRoute => {
      // With security switched off, no token is checked: the document says so.
      const open = enabled || r.access.kind === 'public' || r.access.kind === 'client';
      return {
        ...r,
        path: r.path.replace(/:([A-Za-z]+)/g, '{$1}'),
        access: open ? r.access : { kind: 'public' },
      };
    })
    .sort((a, b) => TAG_ORDER.indexOf(a.doc.tag) - TAG_ORDER.indexOf(b.doc.tag));
  return buildDocument(described, {
    version: VERSION,
    scopes: [jwt.scopeRead, jwt.scopeWrite],
    codeFlow: docsCodeFlow(jwt.grantType, jwt.issuer),
    clientSecret: jwt.clientSecret === DEV_CLIENT_SECRET_HASH ? 'development' : 'configured',
  });
}

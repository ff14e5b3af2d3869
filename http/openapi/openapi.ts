/** The OpenAPI document of the services this configuration serves. */
import { readFileSync } from 'node:fs';
import type { Config } from '../../src/config.ts';
import { MANAGEMENT_PATHS } from '../routes/ops.ts';
import type { RouteInfo } from '../route-table.ts';
import { accountOperations } from './account-operations.ts';
import { employeeOperations, userDataOperations } from './api-operations.ts';
import { authorizeOperations } from './authorize-operations.ts';
import { buildDocument, type DeclaredRoute, type Operation } from './document.ts';
import { operationsOperations, securedOperations } from './secured-operations.ts';

const VERSION = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

const MANAGEMENT: ReadonlySet<string> = new Set(MANAGEMENT_PATHS);

function operationsFor(config: Config): readonly Operation[] {
  return [
    ...(config.services.has('secured') ? [...securedOperations, ...authorizeOperations, ...accountOperations] : []),
    ...(config.services.has('employee') ? employeeOperations : []),
    ...(config.services.has('userdata') ? userDataOperations : []),
    // With a management port, /health, /ready and /metrics are served there, not on this port.
    ...operationsOperations.filter((o) => config.management.port === undefined || !MANAGEMENT.has(o.path)),
  ];
}

/**
 * The document of the routes as mounted: each operation's `security` and error body come from its
 * route's declaration (the same one that is checked and rendered), so the two cannot drift apart.
 */
export function openApiFor(config: Config, routes: readonly RouteInfo[]): Record<string, unknown> {
  const { enabled, jwt } = config.security;
  const declared = new Map(routes.map((r) => [`${r.method} ${r.path.replace(/:([A-Za-z]+)/g, '{$1}')}`, r]));
  const routeOf = (method: string, path: string): DeclaredRoute => {
    const route = declared.get(`${method.toUpperCase()} ${path}`);
    if (route === undefined)
      throw new Error(`the OpenAPI document describes ${method.toUpperCase()} ${path}, which no route serves`);
    const { access, errorFormat } = route;
    // With security switched off, no token is checked: the document says so.
    const open = enabled || access.kind === 'public' || access.kind === 'client';
    return { access: open ? access : { kind: 'public' }, errorFormat };
  };
  return buildDocument(operationsFor(config), {
    version: VERSION,
    issuer: jwt.issuer,
    scopes: [jwt.scopeRead, jwt.scopeWrite],
    routeOf,
  });
}

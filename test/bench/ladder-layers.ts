/**
 * The rungs of the layer ladder (`scenarios-ladder.ts`): what `bare-server.ts` puts in front of its
 * own handler when `BARE_LAYERS` is 1–4, each rung adding one layer of the real server to the one
 * before, with the project's own modules rather than copies of them:
 * 1. the request frame (`http/middleware/frame.ts`) with a pino logger at `warn` and the real
 *    metrics registry;
 * 2. routing: `GET /api/employee/:id` declared with `route()`, mounted by `mountRoutes` and run by
 *    `dispatch` (`http/routing.ts`), public, its handler still the bare primary-key read;
 * 3. the bearer check on that route: `token(scope)` access through `bearerAuthenticator` with the
 *    core's `verifyBearer` (`src/composition/core.ts` started on the same data directory: the token
 *    cache, the denylist with its store change check, the key ring);
 * 4. the actor ask: the route is `employeeRoutes`' own (its id validation, then an ask to the
 *    EmployeeActor the core spawned, as the app does, its messages observed by the metrics).
 * Rung 5 is the full server itself. The frame is first, so a path the route does not take (the
 * bare handler's listing, which the harness polls for readiness) still reaches the bare handler.
 */
import type { Middleware } from 'koa';
import { dirname } from 'node:path';
import { bearerAuthenticator } from '../../http/middleware/bearer-auth.ts';
import { requestFrame } from '../../http/middleware/frame.ts';
import { employeeRoutes } from '../../http/routes/employee.ts';
import { dispatch, mountRoutes, type Guards } from '../../http/dispatch.ts';
import { bearer, PUBLIC, route, type Route } from '../../http/route-table.ts';
import type { AppState } from '../../http/state.ts';
import { loadConfig } from '../../src/config.ts';
import { startCore } from '../../src/composition/core.ts';
import type { ObjectIdString } from '../../src/ids.ts';
import { createLogger } from '../../src/logger.ts';
import { createMetrics } from '../../src/metrics.ts';
import type { EmployeeStore } from '../../src/stores/employee-store.ts';

/** What each rung adds, by its number (5: the full server). */
export const RUNGS = [
  'bare Koa handler',
  '+ request frame (request id, errors, metrics, log level check)',
  '+ routing (route table and dispatch, public route)',
  '+ bearer check (token cache, denylist, key ring)',
  "+ actor ask (the route's handler: id validation, ask to the EmployeeActor)",
  'full server',
] as const;

export interface LadderOptions {
  /** 1–4: how many layers stand in front of the bare handler. */
  readonly layers: number;
  /** The SQLite file the bare handler reads; the core (rungs 3–4) runs on its directory. */
  readonly dbFile: string;
  /** The bare handler's employee store (rungs 2–3 read through it, as rung 0 does). */
  readonly employees: EmployeeStore;
  /** The issuer of the tokens to accept (the full server's URL): rungs 3–4 verify its tokens. */
  readonly issuer: string;
}

const refused = (): never => {
  throw new Error('no route of this rung authenticates a client or a token');
};

/** The middleware of rungs 1 to `layers`, in the order `app.use` takes them. */
export async function ladderLayers(options: LadderOptions): Promise<Middleware<AppState>[]> {
  const { layers, employees } = options;
  if (!Number.isInteger(layers) || layers < 1 || layers > 4) throw new Error('BARE_LAYERS must be 0 to 4');
  const logger = createLogger('warn');
  const metrics = createMetrics();
  const stack: Middleware<AppState>[] = [requestFrame(logger, metrics)];
  if (layers === 1) return stack;

  const config = loadConfig({
    properties: {
      'data.dir': dirname(options.dbFile),
      'logging.level': 'warn',
      'security.jwt.issuer': options.issuer,
    },
  });
  const core = layers >= 3 ? await startCore(config, logger) : undefined;
  if (core) metrics.watch(core.actors.system, [core.actors.activity]);
  const guards: Guards = {
    authenticate: core
      ? bearerAuthenticator({ enabled: true, realm: config.security.securityRealm, verify: core.verifyBearer })
      : async () => refused(),
    client: async () => refused(),
    realm: config.security.securityRealm,
  };
  const read = core ? bearer(config.security.jwt.scopeRead) : PUBLIC;
  let get: Route | undefined;
  if (layers === 4) {
    const actor = core?.actors.employees;
    if (!actor) throw new Error('the core spawned no EmployeeActor');
    get = employeeRoutes({
      askTimeoutMs: config.actors.askTimeoutMs,
      maxBodyBytes: config.server.maxBodyBytes,
      read,
      write: bearer(config.security.jwt.scopeWrite),
      employees: actor,
    }).find((r) => r.method === 'GET' && r.path === '/api/employee/:id');
  } else {
    // The bare handler's read, as a route.
    get = route('GET', '/api/employee/:id', read, async function bareRead(ctx) {
      const record = await employees.findById(ctx.params['id'] as ObjectIdString);
      if (!record) return;
      ctx.set('ETag', `"${record.version}"`);
      ctx.body = record;
    });
  }
  if (!get) throw new Error('no GET /api/employee/:id route');
  stack.push(dispatch(mountRoutes([get], guards), guards));
  return stack;
}

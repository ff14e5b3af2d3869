/**
 * The rungs of the layer ladder (`scenarios-ladder.ts`): what `bare-server.ts` puts in front of its
 * own handler when `BARE_LAYERS` is 1–4, each rung adding one layer of the real server to the one
 * before, with the project's own modules rather than copies of them:
 * 1. the request frame (`http/middleware/frame.ts`) with a pino logger at `warn` and the real
 *    metrics registry;
 * 2. routing: `GET /api/employee/:id` declared with `route()`, mounted by `mountRoutes` and run by
 *    `dispatch` (`http/route-table.ts`), public, its handler still the bare primary-key read;
 * 3. the bearer check on that route: `token(scope)` access through `bearerAuthenticator` with the
 *    core's `verifyBearer` (`src/composition/core.ts` started on the same data directory: the token
 *    cache, the denylist with its store change check, the key ring);
 * 4. the actor ask: the route is `employeeRoutes`' own (its id validation, then an ask to the
 *    EmployeeActor the core spawned, as the app does, its messages observed by the metrics).
 * Rung 5 is the full server itself. The frame is first, so a path the route does not take (the
 * bare handler's listing, which the harness polls for readiness) still reaches the bare handler.
 *
 * The floor (`BARE_LAYERS=floor`) is what the design rules cost alone: the bearer check as rung 3
 * runs it (its store read on every request included) and the actor ask as rung 4 runs it, in one
 * middleware on the bare server, with no request frame (request id, metrics, log line, error
 * rendering, `nosniff`/`no-store`) and no route table. No server that keeps Koa, the actor hop and
 * a revocation seen by the next request in every process answers this read for less.
 */
import type { Middleware, ParameterizedContext } from 'koa';
import { dirname } from 'node:path';
import { bearerAuthenticator, insufficientScope } from '../../http/middleware/bearer-auth.ts';
import { requestFrame } from '../../http/middleware/frame.ts';
import { employeeRoutes } from '../../http/routes/employee.ts';
import { dispatch, mountRoutes, route, type Route } from '../../http/route-table.ts';
import { bearer, PUBLIC, type Access, type Guards } from '../../http/guards.ts';
import { type RouteParams } from '../../http/state.ts';
import type { AppState } from '../../http/state.ts';
import { loadConfig, type Config } from '../../src/config.ts';
import { startCore, type Core } from '../../src/composition/core.ts';
import type { ObjectIdString } from '../../src/ids.ts';
import { createLogger } from '../../src/logger.ts';
import { createMetrics } from '../../src/telemetry/metrics.ts';
import type { EmployeeStore } from '../../src/stores/employee-store.ts';

/** What each rung adds, by its number (5: the full server). */
export const FLOOR = 'floor: bearer check and actor ask alone (no frame, no routing)';

export const RUNGS = [
  'bare Koa handler',
  '+ request frame (request id, errors, metrics, log level check)',
  '+ routing (route table and dispatch, public route)',
  '+ bearer check (token cache, denylist, key ring)',
  "+ actor ask (the route's handler: id validation, ask to the EmployeeActor)",
  'full server',
] as const;

export interface LadderOptions {
  /** 1–4: how many layers stand in front of the bare handler; 'floor': the design rules alone. */
  readonly layers: number | 'floor';
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
  if (layers === 'floor') return [await floor(options)];
  if (!Number.isInteger(layers) || layers < 1 || layers > 4) throw new Error('BARE_LAYERS must be 0 to 4 or floor');
  const logger = createLogger('warn');
  const metrics = createMetrics();
  const stack: Middleware<AppState>[] = [requestFrame(logger, metrics)];
  if (layers === 1) return stack;

  const config = configOf(options);
  const core = layers >= 3 ? await startCore(config, logger) : undefined;
  if (core) metrics.watch(core.actors.system, [core.actors.activity]);
  const guards: Guards = {
    ...(core
      ? bearerAuthenticator({ enabled: true, realm: config.security.securityRealm, verify: core.verifyBearer })
      : { authenticate: async () => refused() }),
    client: async () => refused(),
    confidentialClient: async () => refused(),
    realm: config.security.securityRealm,
    firstParty: () => false,
  };
  const read = core ? bearer(config.security.jwt.scopeRead) : PUBLIC;
  let get: Route | undefined;
  if (layers === 4) {
    if (!core) throw new Error('rung 4 starts the core');
    get = employeeGet(core, config, read);
  } else {
    // The bare handler's read, as a route.
    const declared = {
      method: 'GET',
      path: '/api/employee/:id',
      access: read,
      summary: 'read',
      tag: 'employee',
    } as const;
    get = route({ ...declared, replies: {} }, async function bareRead(ctx) {
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

function configOf(options: LadderOptions): Config {
  return loadConfig({
    properties: {
      'data.dir': dirname(options.dbFile),
      'logging.level': 'warn',
      'security.jwt.issuer': options.issuer,
    },
  });
}

/** The full server's `GET /api/employee/:id` route, asking the EmployeeActor the core spawned. */
function employeeGet(core: Core, config: Config, read: Access): Route | undefined {
  const employees = core.actors.employees;
  if (!employees) throw new Error('the core spawned no EmployeeActor');
  return employeeRoutes({
    askTimeoutMs: config.actors.askTimeoutMs,
    maxBodyBytes: config.server.maxBodyBytes,
    read,
    write: bearer(config.security.jwt.scopeWrite),
    employees,
  }).find((r) => r.method === 'GET' && r.path === '/api/employee/:id');
}

/**
 * The floor: the route's own handler (its id check and the ask) behind the bearer check the app
 * uses and the scope check of a `bearer(scope)` route, in one middleware; the rest goes on to the
 * bare handler.
 */
async function floor(options: LadderOptions): Promise<Middleware<AppState>> {
  const config = configOf(options);
  const core = await startCore(config, createLogger('warn'));
  const scope = config.security.jwt.scopeRead;
  const authenticate = bearerAuthenticator({
    enabled: true,
    realm: config.security.securityRealm,
    verify: core.verifyBearer,
  });
  const handler = employeeGet(core, config, bearer(scope))?.run.at(-1);
  if (!handler) throw new Error('no GET /api/employee/:id handler');
  const prefix = '/api/employee/';
  const done = async (): Promise<void> => {};
  return async function designRulesAlone(ctx, next) {
    if (ctx.method !== 'GET' || !ctx.path.startsWith(prefix)) return next();
    const known = authenticate.authenticateNow(ctx);
    const principal = known ? (known.enabled ? known.principal : undefined) : await authenticate.authenticate(ctx);
    if (!principal?.scope.includes(scope)) throw insufficientScope(config.security.securityRealm, scope);
    const routed = ctx as ParameterizedContext<AppState, RouteParams>;
    routed.params = { id: ctx.path.slice(prefix.length) };
    await handler(routed, done);
  };
}

/**
 * The baselines of the hot-path claims: bare Koa handlers on the server's own SQLite file, without
 * middleware, actors or security, through the same store adapters (so the same SQL and the same
 * `synchronous` setting), answering the same JSON:
 * - GET /app/listAll: both queries on every request, users without their BCrypt hashes;
 * - GET /api/employee/:id: the primary-key read;
 * - POST /api/users/activity: the same insert, in its own transaction;
 * - with BARE_SIGNING_KEY, POST /oauth/token (client_credentials) and POST /oauth/introspect
 *   (`bare-oauth.ts`);
 * - with BARE_OPENID, POST /oauth/token (authorization_code) and GET /userinfo (`bare-openid.ts`).
 * Run as a child process: PORT, DB_FILE and SQLITE_SYNCHRONOUS from the environment.
 *
 * With BARE_LAYERS=1–4 or floor (and BARE_ISSUER, the full server's URL, whose tokens rungs 3–4 accept) the
 * real server's layers stand in front of the handler, one more per rung (`ladder-layers.ts`); they
 * are only loaded then, so the default start is what it always was.
 */
import { dirname } from 'node:path';
import Koa from 'koa';
import type { AppState } from '../../http/state.ts';
import { newId, type ObjectIdString } from '../../src/ids.ts';
import { sqliteActivityStore } from '../../src/stores/activity-store.sqlite.ts';
import { sqliteAccountStore } from '../../src/stores/account-store.sqlite.ts';
import { sqliteEmployeeStore } from '../../src/stores/employee-store.sqlite.ts';
import { openDatabase } from '../../src/stores/sqlite.ts';

const file = process.env['DB_FILE'];
if (!file) throw new Error('DB_FILE is required');
const db = openDatabase(dirname(file), {
  synchronous: process.env['SQLITE_SYNCHRONOUS'] === 'NORMAL' ? 'NORMAL' : 'FULL',
});
const accounts = sqliteAccountStore(db);
const employees = sqliteEmployeeStore(db);
const activity = sqliteActivityStore(db);

async function readJson(
  req: NodeJS.ReadableStream,
): Promise<{ userId: ObjectIdString; type: string; detail?: Record<string, unknown> }> {
  let text = '';
  for await (const chunk of req) text += String(chunk);
  return JSON.parse(text) as { userId: ObjectIdString; type: string; detail?: Record<string, unknown> };
}

const app = new Koa<AppState>();
const given = process.env['BARE_LAYERS'] ?? '0';
const layers = given === 'floor' ? 'floor' : Number(given);
if (layers !== 0) {
  const { ladderLayers } = await import('./ladder-layers.ts');
  const issuer = process.env['BARE_ISSUER'];
  if (!issuer) throw new Error('BARE_ISSUER is required with BARE_LAYERS');
  for (const layer of await ladderLayers({ layers, dbFile: file, employees, issuer })) app.use(layer);
}
if (process.env['BARE_SIGNING_KEY'] !== undefined) {
  const { bareOAuth } = await import('./bare-oauth.ts');
  app.use(await bareOAuth(process.env));
}
if (process.env['BARE_OPENID'] !== undefined) {
  const { bareOpenId } = await import('./bare-openid.ts');
  app.use(await bareOpenId(db, process.env));
}
app.use(async function bare(ctx) {
  if (ctx.method === 'GET' && ctx.path === '/app/listAll') {
    // The original service's listing, as the AccountActor answers it: no hash, no `enabled`, no
    // email, no security version, no profile time.
    ctx.body = (await accounts.listAll()).map(
      ({ password: _, enabled: __, email: ____, securityVersion: ___, updatedAt: _____, ...account }) => account,
    );
  } else if (ctx.method === 'GET' && ctx.path.startsWith('/api/employee/')) {
    const record = await employees.findById(ctx.path.slice('/api/employee/'.length) as ObjectIdString);
    if (!record) return;
    ctx.set('ETag', `"${record.version}"`);
    ctx.body = record;
  } else if (ctx.method === 'POST' && ctx.path === '/api/users/activity') {
    const input = await readJson(ctx.req);
    const saved = await activity.append({
      id: newId(),
      userId: input.userId,
      type: input.type,
      detail: input.detail ?? {},
      at: new Date().toISOString(),
    });
    if (!saved) return;
    const { seq: _, ...view } = saved;
    ctx.status = 201;
    ctx.body = view;
  }
});
const server = app.listen(Number(process.env['PORT'] ?? 0), '127.0.0.1');
process.once('SIGTERM', () => server.close(() => process.exit(0)));

/**
 * The baseline for GET /app/listAll: a bare Koa handler that opens the server's SQLite file
 * read-only and answers the same JSON straight from the credential store (without the BCrypt
 * hashes, as the server by default), without middleware, actors or security. Run as a child process: PORT and DB_FILE from the environment.
 */
import Database from 'better-sqlite3';
import Koa from 'koa';
import { sqliteCredentialStore } from '../../src/stores/credential-store.sqlite.ts';

const file = process.env['DB_FILE'];
if (!file) throw new Error('DB_FILE is required');
const store = sqliteCredentialStore(new Database(file, { readonly: true, fileMustExist: true }));

const app = new Koa();
app.use(async function listAll(ctx) {
  if (ctx.path !== '/app/listAll') return;
  ctx.body = (await store.listAll()).map(({ password: _, ...user }) => user);
});
const server = app.listen(Number(process.env['PORT'] ?? 0), '127.0.0.1');
process.once('SIGTERM', () => server.close(() => process.exit(0)));

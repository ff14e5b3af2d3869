import type { Context } from 'koa';
import { z } from 'zod';
import * as Accounts from '../../actors/accounts/protocol.ts';
import { ask } from '../../src/messaging/ask.ts';
import type { Ref } from '../../src/messaging/nact.ts';
import type { Reply } from '../../src/messaging/reply.ts';
import { newUsername } from '../../src/security/usernames.ts';
import { accountCursor, accountIdOf } from '../cursors.ts';
import { accessDenied } from '../middleware/bearer-auth.ts';
import { jsonBody } from '../middleware/body.ts';
import { HttpProblem, replyValue, type ReplyCode } from '../problems.ts';
import { bearerWithRole, route, type Route, type RouteParams } from '../route-table.ts';
import type { AppState } from '../state.ts';
import { jsonObject, queryObject, validate } from '../validation.ts';

export interface AccountRouteDeps {
  readonly accounts: Ref<Accounts.Command>;
  readonly askTimeoutMs: number;
  readonly maxBodyBytes: number;
  readonly scopeRead: string;
  readonly scopeWrite: string;
}

const names = z.array(z.string().min(1).max(64)).max(64);
const name = z.string().max(255);
/** A cursor of this listing, read back into the id it names. */
const accountCursorInput = z.string().transform((s, ctx) => {
  const id = accountIdOf(s);
  if (id === undefined) ctx.addIssue({ code: 'custom', message: 'not a cursor of this listing' });
  return id ?? z.NEVER;
});
export const ListAccountsInput = z.strictObject({
  limit: z.coerce.number().int().min(1).max(100).default(20),
  cursor: accountCursorInput.optional(),
  username: z.string().max(255).default(''),
});
export const CreateAccountInput = z.strictObject({
  username: newUsername,
  password: z.string(),
  firstName: name.default(''),
  lastName: name.default(''),
  roles: names,
});
export const UpdateAccountInput = z.strictObject({
  firstName: name.optional(),
  lastName: name.optional(),
  roles: names.optional(),
  enabled: z.boolean().optional(),
});
export const PasswordInput = z.strictObject({ password: z.string() });
/**
 * An account id as the API writes it: canonical decimal, 1 up to 2^53 − 1. Number() would also read
 * `0x1`, `1.0`, `01`, `+1`, `1e0` or ` 1` as account 1, so that one account had many paths.
 */
export const AccountIdParam = z.strictObject({
  id: z
    .string()
    .regex(/^[1-9][0-9]{0,15}$/)
    .transform(Number)
    .pipe(z.number().max(Number.MAX_SAFE_INTEGER)),
});

type Ctx = Context & { readonly state: AppState } & RouteParams;

/** The administrator acting: the token's holder (the route's check has made sure there is one). */
export function actorOf(ctx: { readonly state: AppState }): string {
  const auth = ctx.state.auth;
  if (!auth?.enabled) throw accessDenied();
  return auth.principal.username;
}

/** The id segment of every account path, as the request wrote it (the router's parameter is decoded). */
const ACCOUNT_PATH = /^\/app\/admin\/users\/([^/]*)/;

/**
 * The account id of the path; a malformed or non-canonical one is no account (404, as an unknown
 * one), and so is a percent-encoded digit (`%31`): each account has one path.
 */
export function accountId(ctx: Ctx): number {
  const id = ctx.params['id'];
  const parsed = AccountIdParam.safeParse({ id });
  if (!parsed.success || ACCOUNT_PATH.exec(ctx.path)?.[1] !== id)
    throw new HttpProblem(404, 'account.not_found', 'No such account');
  return parsed.data.id;
}

/** Asks the TokenActor and reads the reply (an account code becomes its problem). */
/** What the account routes are built from: the JSON body parser, ADMIN with the read or write scope, the ask. */
export function accountRouteParts(deps: AccountRouteDeps) {
  return {
    body: jsonBody(deps.maxBodyBytes),
    read: bearerWithRole(deps.scopeRead, Accounts.ADMIN_ROLE),
    write: bearerWithRole(deps.scopeWrite, Accounts.ADMIN_ROLE),
    call: async <T, C extends ReplyCode>(request: (sender: Ref<Reply<T, C>>) => Accounts.Command): Promise<T> =>
      replyValue(await ask(deps.accounts, request, deps.askTimeoutMs)),
  };
}

/** Account administration under /app/admin/users: ADMIN only, checked before any handler. */
export function accountRoutes(deps: AccountRouteDeps): Route[] {
  const { body, read, write, call } = accountRouteParts(deps);
  return [
    route('GET', '/app/admin/users', read, async function listAccounts(ctx) {
      const q = validate(ListAccountsInput, queryObject(ctx), 'query');
      const page = await call(
        Accounts.findAccounts({ usernamePrefix: q.username, afterId: q.cursor ?? 0, limit: q.limit }),
      );
      ctx.body = { items: page.items, nextCursor: page.nextAfterId === null ? null : accountCursor(page.nextAfterId) };
    }),
    route('POST', '/app/admin/users', write, body, async function createAccount(ctx) {
      const input = validate(CreateAccountInput, jsonObject(ctx));
      const account = await call(Accounts.createAccount({ ...input, actor: actorOf(ctx) }));
      ctx.status = 201;
      ctx.set('Location', `/app/admin/users/${account.id}`);
      ctx.body = account;
    }),
    route('GET', '/app/admin/users/:id', read, async function getAccount(ctx) {
      ctx.body = await call(Accounts.getAccount({ id: accountId(ctx) }));
    }),
    route('PATCH', '/app/admin/users/:id', write, body, async function updateAccount(ctx) {
      const input = validate(UpdateAccountInput, jsonObject(ctx));
      ctx.body = await call(Accounts.updateAccount({ ...input, id: accountId(ctx), actor: actorOf(ctx) }));
    }),
    route('PUT', '/app/admin/users/:id/password', write, body, async function setPassword(ctx) {
      const { password } = validate(PasswordInput, jsonObject(ctx));
      await call(Accounts.setPassword({ id: accountId(ctx), password, actor: actorOf(ctx) }));
      ctx.status = 204;
    }),
    route('DELETE', '/app/admin/users/:id', write, async function deleteAccount(ctx) {
      await call(Accounts.deleteAccount({ id: accountId(ctx), actor: actorOf(ctx) }));
      ctx.status = 204;
    }),
  ];
}

import { z } from 'zod';
import * as Accounts from '../../actors/accounts/protocol.ts';
import { ask } from '../../src/messaging/ask.ts';
import type { Ref } from '../../src/messaging/nact.ts';
import type { Reply } from '../../src/messaging/reply.ts';
import { accountCursor, accountIdOf } from '../../src/cursors.ts';
import { accessDenied } from '../middleware/bearer-auth.ts';
import { jsonBody } from '../middleware/body.ts';
import { HttpProblem, replyValue, type ReplyCode } from '../problems.ts';
import { done } from '../openapi/replies.ts';
import * as S from '../openapi/shapes.ts';
import type { RouteError } from '../openapi/error-replies.ts';
import { route, type Route } from '../route-table.ts';
import { bearerWithRole } from '../guards.ts';
import type { AppState } from '../state.ts';
import { json, resourcePath } from '../validation.ts';

export interface AccountRouteDeps {
  readonly accounts: Ref<Accounts.Command>;
  readonly askTimeoutMs: number;
  readonly maxBodyBytes: number;
  readonly scopeRead: string;
  readonly scopeWrite: string;
}

const { username, password, name, email, roles } = Accounts.fields;
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
  username,
  password,
  firstName: name.default(''),
  lastName: name.default(''),
  /** Absent or null: the account has no email. */
  email: email.nullable().optional(),
  roles,
});
export const UpdateAccountInput = z.strictObject({
  firstName: name.optional(),
  lastName: name.optional(),
  /** Null clears the email. */
  email: email.nullable().optional(),
  roles: roles.optional(),
  enabled: z.boolean().optional(),
});
export const PasswordInput = z.strictObject({ password });
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

/** The administrator acting: the token's holder (the route's check has made sure there is one). */
export function actorOf(ctx: { readonly state: AppState }): string {
  const auth = ctx.state.auth;
  if (!auth?.enabled) throw accessDenied();
  return auth.principal.username;
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

const noSuchAccount = (): HttpProblem => new HttpProblem(404, 'account.not_found', 'No such account');
/**
 * The account path's id: a malformed or non-canonical one is no account (404, as an unknown one),
 * and so is a percent-encoded digit (`%31`): each account has one path. With `more`, the path's
 * other parameters.
 */
const accountPath = <M extends z.ZodRawShape>(more: M) =>
  resourcePath(AccountIdParam.extend(more), noSuchAccount, ['id']);

/**
 * What a route of one account declares: its path, `/app/admin/users/:id` and `tail`; the path's
 * id (with `more` parameters) read as {@link accountPath} reads it; `account.not_found` and `errors`.
 */
interface OfAccount<M extends z.ZodRawShape> {
  readonly path: string;
  readonly tag: 'secured';
  readonly params: ReturnType<typeof accountPath<M>>;
  readonly errors: readonly RouteError[];
}
export function ofAccount(tail: string, errors?: readonly RouteError[]): OfAccount<Record<never, z.ZodType>>;
export function ofAccount<M extends z.ZodRawShape>(tail: string, errors: readonly RouteError[], more: M): OfAccount<M>;
export function ofAccount(
  tail: string,
  errors: readonly RouteError[] = [],
  more: z.ZodRawShape = {},
): OfAccount<z.ZodRawShape> {
  return {
    path: `/app/admin/users/:id${tail}`,
    tag: 'secured',
    params: accountPath(more),
    errors: ['account.not_found', ...errors],
  };
}
const tag = 'secured';
const summary = { description: 'The account', schema: S.AccountSummary };

/** Account administration under /app/admin/users: ADMIN only, checked before any handler. */
export function accountRoutes(deps: AccountRouteDeps): Route[] {
  const { body: parse, read, write, call } = accountRouteParts(deps);
  return [
    route(
      {
        method: 'GET',
        path: '/app/admin/users',
        access: read,
        tag,
        summary: 'Accounts with their roles, a page at a time; optionally only usernames starting with a prefix',
        query: ListAccountsInput,
        replies: { 200: { description: 'A page', schema: S.AccountPage } },
      },
      async function listAccounts(ctx, { query: q }) {
        const page = await call(
          Accounts.findAccounts({ usernamePrefix: q.username, afterId: q.cursor ?? 0, limit: q.limit }),
        );
        ctx.body = {
          items: page.items,
          nextCursor: page.nextAfterId === null ? null : accountCursor(page.nextAfterId),
        };
      },
    ),
    route(
      {
        method: 'POST',
        path: '/app/admin/users',
        access: write,
        tag,
        summary: 'Create an account',
        parse,
        body: json(CreateAccountInput),
        replies: { 201: { description: 'Created', schema: S.AccountSummary, headers: ['Location'] } },
        errors: [
          'password.invalid',
          'role.unknown',
          'account.username_taken',
          'account.username_reserved',
          'account.email_taken',
        ],
      },
      async function createAccount(ctx, { body }) {
        const account = await call(Accounts.createAccount({ ...body, actor: actorOf(ctx) }));
        ctx.status = 201;
        ctx.set('Location', `/app/admin/users/${account.id}`);
        ctx.body = account;
      },
    ),
    route(
      {
        method: 'GET',
        ...ofAccount(''),
        access: read,
        summary: 'An account with its roles',
        replies: { 200: summary },
      },
      async function getAccount(ctx, { params: { id } }) {
        ctx.body = await call(Accounts.getAccount({ id }));
      },
    ),
    route(
      {
        method: 'PATCH',
        ...ofAccount('', [
          'role.unknown',
          ['account.last_admin', 'the last enabled ADMIN cannot be disabled or demoted'],
          'account.email_taken',
        ]),
        access: write,
        summary: "Change an account's names, email, roles or whether it is enabled; disabling signs it out everywhere",
        parse,
        body: json(UpdateAccountInput),
        replies: { 200: summary },
      },
      async function updateAccount(ctx, { params: { id }, body }) {
        ctx.body = await call(Accounts.updateAccount({ ...body, id, actor: actorOf(ctx) }));
      },
    ),
    route(
      {
        method: 'PUT',
        ...ofAccount('/password', ['password.invalid']),
        access: write,
        summary: "Set an account's password; the account is signed out everywhere",
        parse,
        body: json(PasswordInput),
        replies: { 204: done },
      },
      async function setPassword(ctx, { params: { id }, body: { password } }) {
        await call(Accounts.setPassword({ id, password, actor: actorOf(ctx) }));
        ctx.status = 204;
      },
    ),
    route(
      {
        method: 'DELETE',
        ...ofAccount('', [['account.last_admin', 'the last enabled ADMIN cannot be deleted']]),
        access: write,
        summary: 'Delete an account; it is signed out everywhere',
        replies: { 204: done },
      },
      async function deleteAccount(ctx, { params: { id } }) {
        await call(Accounts.deleteAccount({ id, actor: actorOf(ctx) }));
        ctx.status = 204;
      },
    ),
  ];
}

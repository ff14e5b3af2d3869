import { z } from 'zod';
import * as Accounts from '../../actors/accounts/protocol.ts';
import { ask } from '../../src/messaging/ask.ts';
import type { Logger } from '../../src/logger.ts';
import { isThrottled } from '../../src/security/login-attempts.ts';
import { accessDenied } from '../middleware/bearer-auth.ts';
import { HttpProblem, replyValue } from '../problems.ts';
import { ADMIN_COMMON, BODY_ERRORS, done, problem, SELF_SERVICE_FORBIDDEN } from '../openapi/replies.ts';
import * as S from '../openapi/shapes.ts';
import { route, type Declared, type Route } from '../route-table.ts';
import { SELF_SERVICE } from '../guards.ts';
import { securityEvent } from '../security-events.ts';
import { json } from '../validation.ts';
import {
  ACCOUNT_NOT_FOUND,
  ACCOUNT_PATH_PARAMS,
  LOGIN_PATH_PARAMS,
  accountId,
  actorOf,
  accountRouteParts,
  PASSWORD_INVALID,
  type AccountRouteDeps,
} from './accounts.ts';

/**
 * What an account's own password change needs besides the account routes': where its security events
 * go (AccountActor throttles it like a login: a wrong current password is a failed login).
 */
export interface OwnPasswordDeps extends AccountRouteDeps {
  readonly logger: Logger;
}

/** 429 `too_many_requests` with `Retry-After`: for failures, or (`inFlight`) for checks under way at once. */
const tooMany = (seconds: number, inFlight: boolean): HttpProblem =>
  new HttpProblem(
    429,
    'too_many_requests',
    `Too many password checks${inFlight ? ' under way at once' : ''}; retry in ${seconds} seconds`,
    { headers: { 'Retry-After': String(seconds) } },
  );

export const CreateRoleInput = z.strictObject({
  roleName: Accounts.fields.roleName,
  description: Accounts.fields.description.default(''),
});
export const OwnPasswordInput = z.strictObject({
  currentPassword: Accounts.fields.password,
  newPassword: Accounts.fields.password,
});

const tag = 'secured';
const LIST_LOGINS = {
  method: 'GET',
  path: '/app/admin/users/:id/sessions',
  tag,
  summary: 'Where the account is signed in now',
  params: ACCOUNT_PATH_PARAMS,
  replies: { 200: { description: 'Logins', schema: z.array(S.Login) }, 404: ACCOUNT_NOT_FOUND, ...ADMIN_COMMON },
} satisfies Declared;
const END_LOGINS = {
  method: 'DELETE',
  path: '/app/admin/users/:id/sessions',
  tag,
  summary: 'Sign the account out everywhere',
  params: ACCOUNT_PATH_PARAMS,
  replies: { 204: done, 404: ACCOUNT_NOT_FOUND, ...ADMIN_COMMON },
} satisfies Declared;
const END_LOGIN = {
  method: 'DELETE',
  path: '/app/admin/users/:id/sessions/:sid',
  tag,
  summary: 'Sign the account out of one sign-in',
  params: LOGIN_PATH_PARAMS,
  replies: {
    204: done,
    404: problem('`account.not_found`, or `login.not_found`: no live login of the account has the sid'),
    ...ADMIN_COMMON,
  },
} satisfies Declared;
const CLEAR_LOCKOUT = {
  method: 'DELETE',
  path: '/app/admin/users/:id/lockout',
  tag,
  summary: 'Let the account sign in again after too many failed attempts',
  params: ACCOUNT_PATH_PARAMS,
  replies: { 204: done, 404: ACCOUNT_NOT_FOUND, ...ADMIN_COMMON },
} satisfies Declared;
const LIST_ROLES = {
  method: 'GET',
  path: '/app/admin/roles',
  tag,
  summary: 'Every role an account can have',
  replies: { 200: { description: 'Roles', schema: z.array(S.RoleSummary) }, ...ADMIN_COMMON },
} satisfies Declared;
const CREATE_ROLE = {
  method: 'POST',
  path: '/app/admin/roles',
  tag,
  summary: 'Create a role',
  body: json(CreateRoleInput),
  replies: {
    201: { description: 'Created', schema: S.RoleSummary },
    ...BODY_ERRORS,
    409: problem('`role.name_taken`'),
    ...ADMIN_COMMON,
  },
} satisfies Declared;
/**
 * Refused (403) before its body is read with security off, or for a token of a third-party client:
 * {@link SELF_SERVICE}.
 */
const OWN_PASSWORD = {
  method: 'PUT',
  path: '/app/me/password',
  tag,
  summary: 'Change your own password; your other sign-ins end',
  body: json(OwnPasswordInput),
  replies: {
    204: done,
    ...BODY_ERRORS,
    400: problem(['`validation`', PASSWORD_INVALID, '`password.incorrect` (the current one)'].join('; ')),
    401: ADMIN_COMMON[401],
    403: SELF_SERVICE_FORBIDDEN,
    404: problem('`account.not_found`: the token speaks for no enabled account'),
    429: problem(
      '`too_many_requests`: too many failed password checks of the account or from the address, or another change of the account under way',
      ['Retry-After'],
    ),
    503: ADMIN_COMMON[503],
  },
} satisfies Declared;

/** An account's logins and lockout, the roles (ADMIN only), and an account's own password. */
export function accountLoginRoutes(deps: OwnPasswordDeps): Route[] {
  const { body: parse, read, write, call } = accountRouteParts(deps);
  /**
   * Accounts with an own-password check under way in this process: one at a time each, so that one
   * account's guesses take at most one BCrypt thread here, whatever it sends in parallel (a fair
   * share of the pool that every login uses); the next is 429 until it is answered.
   */
  const checking = new Set<string>();
  return [
    route({ ...LIST_LOGINS, access: read }, async function listLogins(ctx) {
      ctx.body = await call(Accounts.listLogins({ id: accountId(ctx) }));
    }),
    route({ ...END_LOGINS, access: write }, async function endLogins(ctx) {
      await call(Accounts.endLogins({ id: accountId(ctx), actor: actorOf(ctx) }));
      ctx.status = 204;
    }),
    route({ ...END_LOGIN, access: write }, async function endLogin(ctx) {
      const sid = ctx.params['sid'] ?? '';
      await call(Accounts.endLogins({ id: accountId(ctx), loginId: sid, actor: actorOf(ctx) }));
      ctx.status = 204;
    }),
    route({ ...CLEAR_LOCKOUT, access: write }, async function clearLockout(ctx) {
      await call(Accounts.clearLockout({ id: accountId(ctx), actor: actorOf(ctx) }));
      ctx.status = 204;
    }),
    route({ ...LIST_ROLES, access: read }, async function listRoles(ctx) {
      ctx.body = await call(Accounts.listRoles());
    }),
    route({ ...CREATE_ROLE, access: write, parse }, async function createRole(ctx, { body }) {
      ctx.body = await call(Accounts.createRole({ ...body, actor: actorOf(ctx) }));
      ctx.status = 201;
    }),
    route({ ...OWN_PASSWORD, access: SELF_SERVICE, parse }, async function changeOwnPassword(ctx, { body }) {
      const auth = ctx.state.auth;
      if (!auth?.enabled) throw accessDenied();
      const { username, loginId, accountId, accountVersion } = auth.principal;
      // A client's own token (client_credentials) speaks for no account.
      if (accountId === undefined || accountVersion === undefined)
        throw new HttpProblem(404, 'account.not_found', 'The token speaks for no account');
      if (checking.has(username)) throw tooMany(1, true);
      checking.add(username);
      let reply: Accounts.OwnPasswordReply;
      try {
        // AccountActor counts the check as a login of the account from this address, before any
        // BCrypt work: the same per-account and per-address counts as the password grant and the
        // sign-in form.
        reply = await ask(
          deps.accounts,
          Accounts.changeOwnPassword({ ...body, accountId, accountVersion, loginId, address: ctx.ip }),
          deps.askTimeoutMs,
        );
      } finally {
        checking.delete(username);
      }
      if (isThrottled(reply)) {
        securityEvent(deps.logger, ctx, 'login.throttled', { username });
        throw tooMany(reply.retryAfter, reply.inFlight);
      }
      if (reply.ok) securityEvent(deps.logger, ctx, 'password.changed', { username });
      else if (reply.code === 'password.incorrect')
        securityEvent(deps.logger, ctx, 'password.change_failed', { username });
      replyValue(reply);
      ctx.status = 204;
    }),
  ];
}

import { z } from 'zod';
import * as Accounts from '../../actors/accounts/protocol.ts';
import { ask } from '../../src/messaging/ask.ts';
import type { Logger } from '../../src/logger.ts';
import { PASSWORD_CHECKS, throttled } from '../../src/security/login-attempts.ts';
import { accessDenied } from '../middleware/bearer-auth.ts';
import { HttpProblem, replyError, replyValue } from '../problems.ts';
import { done } from '../openapi/replies.ts';
import * as S from '../openapi/shapes.ts';
import { route, type Declared, type Route } from '../route-table.ts';
import { SELF_SERVICE } from '../guards.ts';
import { securityEvent } from '../security-events.ts';
import { json } from '../validation.ts';
import { actorOf, ofAccount, accountRouteParts, type AccountRouteDeps } from './accounts.ts';

/**
 * What an account's own password change needs besides the account routes': where its security events
 * go (AccountActor throttles it like a login: a wrong current password is a failed login).
 */
export interface OwnPasswordDeps extends AccountRouteDeps {
  readonly logger: Logger;
}

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
  ...ofAccount('/sessions'),
  summary: 'Where the account is signed in now',
  replies: { 200: { description: 'Logins', schema: z.array(S.Login) } },
} satisfies Declared;
const END_LOGINS = {
  method: 'DELETE',
  ...ofAccount('/sessions'),
  summary: 'Sign the account out everywhere',
  replies: { 204: done },
} satisfies Declared;
const END_LOGIN = {
  method: 'DELETE',
  ...ofAccount('/sessions/:sid', ['login.not_found'], { sid: z.string() }),
  summary: 'Sign the account out of one sign-in',
  replies: { 204: done },
} satisfies Declared;
const CLEAR_LOCKOUT = {
  method: 'DELETE',
  ...ofAccount('/lockout'),
  summary: 'Let the account sign in again after too many failed attempts',
  replies: { 204: done },
} satisfies Declared;
const LIST_ROLES = {
  method: 'GET',
  path: '/app/admin/roles',
  tag,
  summary: 'Every role an account can have',
  replies: { 200: { description: 'Roles', schema: z.array(S.RoleSummary) } },
} satisfies Declared;
const CREATE_ROLE = {
  method: 'POST',
  path: '/app/admin/roles',
  tag,
  summary: 'Create a role',
  body: json(CreateRoleInput),
  replies: { 201: { description: 'Created', schema: S.RoleSummary } },
  errors: ['role.name_taken'],
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
  replies: { 204: done },
  errors: [
    'password.invalid',
    'password.incorrect',
    ['account.not_found', 'the token speaks for no enabled account'],
    [
      'login.throttled',
      'too many failed password checks of the account or from the address, or another change of the account under way',
    ],
  ],
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
    route({ ...LIST_LOGINS, access: read }, async function listLogins(ctx, { params: { id } }) {
      ctx.body = await call(Accounts.listLogins({ id }));
    }),
    route({ ...END_LOGINS, access: write }, async function endLogins(ctx, { params: { id } }) {
      await call(Accounts.endLogins({ id, actor: actorOf(ctx) }));
      ctx.status = 204;
    }),
    route({ ...END_LOGIN, access: write }, async function endLogin(ctx, { params: { id, sid } }) {
      await call(Accounts.endLogins({ id, loginId: sid, actor: actorOf(ctx) }));
      ctx.status = 204;
    }),
    route({ ...CLEAR_LOCKOUT, access: write }, async function clearLockout(ctx, { params: { id } }) {
      await call(Accounts.clearLockout({ id, actor: actorOf(ctx) }));
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
      if (checking.has(username)) throw replyError(throttled({ retryAfter: 1, inFlight: true }, PASSWORD_CHECKS));
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
      if (!reply.ok && reply.code === 'login.throttled')
        securityEvent(deps.logger, ctx, 'login.throttled', { username });
      else if (reply.ok) securityEvent(deps.logger, ctx, 'password.changed', { username });
      else if (reply.code === 'password.incorrect')
        securityEvent(deps.logger, ctx, 'password.change_failed', { username });
      replyValue(reply);
      ctx.status = 204;
    }),
  ];
}

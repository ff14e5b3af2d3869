import { z } from 'zod';
import * as Accounts from '../../actors/accounts/protocol.ts';
import { ask } from '../../src/messaging/ask.ts';
import type { Reply } from '../../src/messaging/reply.ts';
import type { Logger } from '../../src/logger.ts';
import type { LoginThrottle } from '../../src/security/login-throttle.ts';
import { settle } from '../throttled-attempts.ts';
import { accessDenied } from '../middleware/bearer-auth.ts';
import { HttpProblem, replyValue } from '../problems.ts';
import { bearer, route, type Route } from '../route-table.ts';
import { securityEvent } from '../security-events.ts';
import { jsonObject, validate } from '../validation.ts';
import { accountId, actorOf, accountRouteParts, type AccountRouteDeps } from './accounts.ts';

/** What a user's own password change needs besides the account routes': it is throttled like a login. */
export interface OwnPasswordDeps extends AccountRouteDeps {
  /** The login throttle: a wrong current password counts as a failed login of the account. */
  readonly throttle: LoginThrottle;
  readonly logger: Logger;
}

/** 429 `too_many_requests` with `Retry-After`. */
const tooMany = (seconds: number): HttpProblem =>
  new HttpProblem(429, 'too_many_requests', `Too many password checks; retry in ${seconds} seconds`, {
    headers: { 'Retry-After': String(seconds) },
  });

export const CreateRoleInput = z.strictObject({
  roleName: Accounts.roleName,
  description: z.string().max(255).default(''),
});
export const OwnPasswordInput = z.strictObject({ currentPassword: z.string(), newPassword: z.string() });

/** An account's logins and lockout, the roles (ADMIN only), and a user's own password. */
export function accountLoginRoutes(deps: OwnPasswordDeps): Route[] {
  const { body, read, write, call } = accountRouteParts(deps);
  /**
   * Accounts with an own-password check under way in this process: one at a time each, so that one
   * account's guesses take at most one BCrypt thread here, whatever it sends in parallel (a fair
   * share of the pool that every login uses); the next is 429 until it is answered.
   */
  const checking = new Set<string>();
  return [
    route('GET', '/app/admin/users/:id/sessions', read, async function listLogins(ctx) {
      ctx.body = await call(Accounts.listLogins({ id: accountId(ctx) }));
    }),
    route('DELETE', '/app/admin/users/:id/sessions', write, async function endLogins(ctx) {
      await call(Accounts.endLogins({ id: accountId(ctx), actor: actorOf(ctx) }));
      ctx.status = 204;
    }),
    route('DELETE', '/app/admin/users/:id/sessions/:sid', write, async function endLogin(ctx) {
      const sid = ctx.params['sid'] ?? '';
      await call(Accounts.endLogins({ id: accountId(ctx), sid, actor: actorOf(ctx) }));
      ctx.status = 204;
    }),
    route('DELETE', '/app/admin/users/:id/lockout', write, async function clearLockout(ctx) {
      await call(Accounts.clearLockout({ id: accountId(ctx), actor: actorOf(ctx) }));
      ctx.status = 204;
    }),
    route('GET', '/app/admin/roles', read, async function listRoles(ctx) {
      ctx.body = await call(Accounts.listRoles());
    }),
    route('POST', '/app/admin/roles', write, body, async function createRole(ctx) {
      const input = validate(CreateRoleInput, jsonObject(ctx));
      ctx.body = await call(Accounts.createRole({ ...input, actor: actorOf(ctx) }));
      ctx.status = 201;
    }),
    route('PUT', '/app/me/password', bearer(), body, async function changeOwnPassword(ctx) {
      const auth = ctx.state.auth;
      if (!auth?.enabled) throw accessDenied();
      const input = validate(OwnPasswordInput, jsonObject(ctx));
      const { username, loginId, accountId, accountVersion } = auth.principal;
      // A client's own token (client_credentials) speaks for no account.
      if (accountId === undefined || accountVersion === undefined)
        throw new HttpProblem(404, 'account.not_found', 'The token speaks for no account');
      if (checking.has(username)) throw tooMany(1);
      // Counted as a login of the account from this address, before any BCrypt work: the same
      // per-account and per-address counts as the password grant and the sign-in form.
      const admission = await deps.throttle.begin(username, ctx.ip);
      if ('retryAfter' in admission) {
        securityEvent(deps.logger, ctx, 'login.throttled', { username });
        throw tooMany(admission.retryAfter);
      }
      checking.add(username);
      let reply: Reply<null, Accounts.ErrorCode>;
      try {
        reply = await settle(
          admission.attempt,
          ask(
            deps.accounts,
            Accounts.changeOwnPassword({ ...input, accountId, accountVersion, sid: loginId }),
            deps.askTimeoutMs,
          ),
          (r) => (r.ok ? 'succeeded' : r.code === 'password.incorrect' ? 'failed' : 'abandoned'),
        );
      } finally {
        checking.delete(username);
      }
      if (reply.ok) securityEvent(deps.logger, ctx, 'password.changed', { username });
      else if (reply.code === 'password.incorrect')
        securityEvent(deps.logger, ctx, 'password.change_failed', { username });
      replyValue(reply);
      ctx.status = 204;
    }),
  ];
}

import { z } from 'zod';
import * as Token from '../../actors/token/protocol.ts';
import { accessDenied } from '../middleware/bearer-auth.ts';
import { bearer, route, type Route } from '../route-table.ts';
import { jsonObject, validate } from '../validation.ts';
import { accountId, actorOf, accountRouteParts, type AccountRouteDeps } from './accounts.ts';

export const CreateRoleInput = z.strictObject({
  roleName: z.string().regex(/^[A-Z][A-Z0-9_]{0,63}$/, 'must be 1 to 64 of A-Z, 0-9 and _, starting with a letter'),
  description: z.string().max(255).default(''),
});
export const OwnPasswordInput = z.strictObject({ currentPassword: z.string(), newPassword: z.string() });

/** An account's logins and lockout, the roles (ADMIN only), and a user's own password. */
export function accountLoginRoutes(deps: AccountRouteDeps): Route[] {
  const { body, read, write, call } = accountRouteParts(deps);
  return [
    route('GET', '/app/admin/users/:id/sessions', read, async function listLogins(ctx) {
      ctx.body = await call(Token.listLogins({ id: accountId(ctx) }));
    }),
    route('DELETE', '/app/admin/users/:id/sessions', write, async function endLogins(ctx) {
      await call(Token.endLogins({ id: accountId(ctx), actor: actorOf(ctx) }));
      ctx.status = 204;
    }),
    route('DELETE', '/app/admin/users/:id/sessions/:sid', write, async function endLogin(ctx) {
      const sid = ctx.params['sid'] ?? '';
      await call(Token.endLogins({ id: accountId(ctx), sid, actor: actorOf(ctx) }));
      ctx.status = 204;
    }),
    route('DELETE', '/app/admin/users/:id/lockout', write, async function clearLockout(ctx) {
      await call(Token.clearLockout({ id: accountId(ctx), actor: actorOf(ctx) }));
      ctx.status = 204;
    }),
    route('GET', '/app/admin/roles', read, async function listRoles(ctx) {
      ctx.body = await call(Token.listRoles());
    }),
    route('POST', '/app/admin/roles', write, body, async function createRole(ctx) {
      const input = validate(CreateRoleInput, jsonObject(ctx));
      ctx.body = await call(Token.createRole({ ...input, actor: actorOf(ctx) }));
      ctx.status = 201;
    }),
    route('PUT', '/app/me/password', bearer(), body, async function changeOwnPassword(ctx) {
      const auth = ctx.state.auth;
      if (!auth?.enabled) throw accessDenied();
      const input = validate(OwnPasswordInput, jsonObject(ctx));
      const { username, loginId } = auth.principal;
      await call(Token.changeOwnPassword({ ...input, username, sid: loginId }));
      ctx.status = 204;
    }),
  ];
}

import type { Middleware } from 'koa';
import type { Principal } from '../../src/security/jwt.ts';
import { OAuthError } from '../problems.ts';
import type { AppState } from '../state.ts';

export type Rule = (principal: Principal) => boolean;

/** The principal holds the role (by name). */
export const hasRole = (role: string): Rule => (principal) => principal.authorities.includes(role);

/**
 * Method-level post-authorization (Spring's `@PostAuthorize`): the handler runs and produces its
 * result first; then `rule` decides whether that result is sent or discarded for a 403.
 * With security disabled every result is sent.
 */
export function postAuthorize(rule: Rule, handler: Middleware<AppState>): Middleware<AppState> {
  return async function postAuthorized(ctx, next) {
    await handler(ctx, next);
    const auth = ctx.state.auth;
    if (auth === undefined || (auth.enabled && !rule(auth.principal))) {
      ctx.body = null;
      ctx.remove('Content-Type');
      throw new OAuthError(403, 'access_denied', 'Access is denied');
    }
  };
}

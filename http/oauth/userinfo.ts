/**
 * OpenID Connect UserInfo (Core §5.3): the claims of the OpenID scopes a token was granted, about
 * the account it speaks for, over GET and POST with the token in the `Authorization` header (a
 * token in the query is refused, one in a form body is not read). Its refusals are RFC 6750's:
 * a missing or bad token is 401 with its challenge, a token without `openid` 403
 * `insufficient_scope`. The account is read fresh through AccountActor on every request.
 */
import type { Context } from 'koa';
import * as Accounts from '../../actors/accounts/protocol.ts';
import { ask } from '../../src/messaging/ask.ts';
import type { Ref } from '../../src/messaging/nact.ts';
import { OPENID_SCOPE, userInfoClaims } from '../../src/security/claims.ts';
import { accessDenied, invalidToken } from '../middleware/bearer-auth.ts';
import { replyValue } from '../problems.ts';
import { oauthError } from '../openapi/replies.ts';
import * as S from '../openapi/shapes.ts';
import { oauthErrors, route, type Declared, type Route } from '../route-table.ts';
import type { Access } from '../guards.ts';
import type { AppState } from '../state.ts';

export interface UserInfoRouteDeps {
  readonly accounts: Ref<Accounts.Command>;
  readonly askTimeoutMs: number;
  /** The realm of the RFC 6750 challenge (`security.security-realm`). */
  readonly realm: string;
}

export const USERINFO_PATH = '/userinfo';

/**
 * A token with `openid` that speaks for its holder: with security switched off there is no
 * holder, and the route is 403 `access_denied` before its handler.
 */
const ACCESS: Access = { kind: 'bearer', scope: OPENID_SCOPE, holder: true };

/** Said of the handler's own 401: the token passed the resource server's check but names no account UserInfo can answer for. */
const NO_ACCOUNT_WORDS =
  '`invalid_token`: the token names no account (a client’s own token, client_credentials), or its account was deleted, disabled or changed (its security version moved) since it was minted';

const DECLARED = {
  path: USERINFO_PATH,
  tag: 'secured',
  replies: {
    200: { description: 'The claims of the granted OpenID scopes that the account has', schema: S.UserInfo },
    401: oauthError(NO_ACCOUNT_WORDS, ['WWW-Authenticate']),
    403: oauthError('`access_denied`: security is switched off (`security.enabled=false`): no token has a holder'),
  },
} satisfies Omit<Declared, 'method' | 'summary'>;

export function userInfoRoutes(deps: UserInfoRouteDeps): Route[] {
  /** The claims of the account the request's token speaks for, read now. */
  async function userInfo(ctx: Context & { readonly state: AppState }): Promise<void> {
    const auth = ctx.state.auth;
    if (!auth?.enabled) throw accessDenied();
    const { accountId, accountVersion, scope } = auth.principal;
    // RFC 6750 §3.1 `invalid_token` ("invalid for other reasons"): a client's own token is valid
    // elsewhere, but describes no End-User; no other scope would make it one (node-oidc-provider
    // answers the same).
    if (accountId === undefined || accountVersion === undefined)
      throw invalidToken(deps.realm, 'The access token names no account: UserInfo describes an account');
    const reply = await ask(deps.accounts, Accounts.getProfile({ accountId, accountVersion }), deps.askTimeoutMs);
    if (!reply.ok && reply.code === 'account.not_found')
      throw invalidToken(
        deps.realm,
        'The account of the access token is gone, disabled or changed since it was issued',
      );
    ctx.body = userInfoClaims(replyValue(reply), scope);
  }
  return [
    oauthErrors(
      route(
        { ...DECLARED, method: 'GET', access: ACCESS, summary: 'OpenID Connect UserInfo: claims about the account' },
        async function getUserInfo(ctx) {
          await userInfo(ctx);
        },
      ),
    ),
    oauthErrors(
      route(
        {
          ...DECLARED,
          method: 'POST',
          access: ACCESS,
          summary: 'OpenID Connect UserInfo, by POST: the token in the Authorization header, a body is not read',
        },
        async function postUserInfo(ctx) {
          await userInfo(ctx);
        },
      ),
    ),
  ];
}

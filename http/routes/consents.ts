/**
 * The consents an account gave clients at the authorization endpoint: its own under /app/me (a
 * token of the account issued to a first-party client: a third-party application never sees or ends
 * the account's other applications), any account's under /app/admin/users/:id (ADMIN). Withdrawing
 * one ends the account's logins of that client; the next authorization asks again.
 */
import type { Context } from 'koa';
import { z } from 'zod';
import * as Accounts from '../../actors/accounts/protocol.ts';
import * as Token from '../../actors/token/protocol.ts';
import { ask } from '../../src/messaging/ask.ts';
import type { Logger } from '../../src/logger.ts';
import type { Ref } from '../../src/messaging/nact.ts';
import { accessDenied } from '../middleware/bearer-auth.ts';
import { HttpProblem, replyValue } from '../problems.ts';
import { done } from '../openapi/replies.ts';
import * as S from '../openapi/shapes.ts';
import { route, type Declared, type Route } from '../route-table.ts';
import { bearerWithRole, SELF_SERVICE } from '../guards.ts';
import { securityEvent } from '../security-events.ts';
import type { AppState } from '../state.ts';
import { resourcePath } from '../validation.ts';
import { ofAccount } from './accounts.ts';

export interface ConsentRouteDeps {
  readonly token: Ref<Token.Command>;
  readonly askTimeoutMs: number;
  readonly scopeRead: string;
  readonly scopeWrite: string;
  readonly logger: Logger;
}

const tag = 'secured';
const CONSENTS = { description: 'The consents, by client id', schema: z.array(S.Consent) };
const OWN_NO_ACCOUNT = ['account.not_found', 'the token speaks for no account (a client’s own token)'] as const;
/** Every client id names a consent the account may have given; an unknown one is `consent.not_found`. */
const CLIENT_PARAM = { clientId: z.string() };
const noSuchConsent = (): HttpProblem => new HttpProblem(404, 'consent.not_found', 'No such consent');

const OWN_LIST = {
  method: 'GET',
  path: '/app/me/consents',
  tag,
  summary: 'The applications you allowed, and the scopes you allowed each',
  replies: { 200: CONSENTS },
  errors: [OWN_NO_ACCOUNT],
} satisfies Declared;
const OWN_WITHDRAW = {
  method: 'DELETE',
  path: '/app/me/consents/:clientId',
  tag,
  summary: 'Withdraw your consent to an application: its sign-ins end, and it must ask again',
  params: resourcePath(z.object(CLIENT_PARAM), noSuchConsent),
  replies: { 204: done },
  errors: ['consent.not_found', OWN_NO_ACCOUNT],
} satisfies Declared;
const LIST = {
  method: 'GET',
  ...ofAccount('/consents'),
  summary: 'The applications the account allowed, and the scopes it allowed each',
  replies: { 200: CONSENTS },
} satisfies Declared;
const WITHDRAW = {
  method: 'DELETE',
  ...ofAccount('/consents/:clientId', ['consent.not_found'], CLIENT_PARAM),
  summary: 'Withdraw the account’s consent to an application: its sign-ins of it end',
  replies: { 204: done },
} satisfies Declared;

/** The account the token speaks for: 404 for a client's own token, 403 with security off. */
function ownAccount(ctx: Context & { readonly state: AppState }): number {
  const auth = ctx.state.auth;
  if (!auth?.enabled) throw accessDenied();
  const id = auth.principal.accountId;
  if (id === undefined) throw new HttpProblem(404, 'account.not_found', 'The token speaks for no account');
  return id;
}

export function consentRoutes(deps: ConsentRouteDeps): Route[] {
  const list = async (accountId: number) =>
    replyValue(await ask(deps.token, Token.listConsents({ accountId }), deps.askTimeoutMs));
  const withdraw = async (ctx: Context & { readonly state: AppState }, accountId: number, clientId: string) => {
    const reply = await ask(deps.token, Token.withdrawConsent({ accountId, clientId }), deps.askTimeoutMs);
    const { username } = replyValue(reply);
    securityEvent(deps.logger, ctx, 'consent.withdrawn', { username, clientId });
    ctx.status = 204;
  };
  const read = bearerWithRole(deps.scopeRead, Accounts.ADMIN_ROLE);
  const write = bearerWithRole(deps.scopeWrite, Accounts.ADMIN_ROLE);
  return [
    route({ ...OWN_LIST, access: SELF_SERVICE }, async function listOwnConsents(ctx) {
      ctx.body = await list(ownAccount(ctx));
    }),
    route({ ...OWN_WITHDRAW, access: SELF_SERVICE }, async function withdrawOwnConsent(ctx, { params }) {
      await withdraw(ctx, ownAccount(ctx), params.clientId);
    }),
    route({ ...LIST, access: read }, async function listConsents(ctx, { params: { id } }) {
      ctx.body = await list(id);
    }),
    route({ ...WITHDRAW, access: write }, async function withdrawConsent(ctx, { params: { id, clientId } }) {
      await withdraw(ctx, id, clientId);
    }),
  ];
}

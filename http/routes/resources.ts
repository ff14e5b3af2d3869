import * as Accounts from '../../actors/accounts/protocol.ts';
import { ask } from '../../src/messaging/ask.ts';
import type { Ref } from '../../src/messaging/nact.ts';
import { replyValue } from '../problems.ts';
import { z } from 'zod';
import { text } from '../openapi/replies.ts';
import * as S from '../openapi/shapes.ts';
import { route, type Route } from '../route-table.ts';
import { bearer, role } from '../guards.ts';
import type { AppState } from '../state.ts';

export interface ResourceRouteDeps {
  readonly accounts: Ref<Accounts.Command>;
  readonly askTimeoutMs: number;
  readonly includePasswordHash: boolean;
}

const tag = 'secured';
/** A greeting, or the role's refusal once the handler has run. */
const greeting = { 200: text('Greeting') } as const;

const whoAmI = (state: AppState): string => (state.auth?.enabled ? state.auth.principal.username : 'anonymous');

/**
 * The secured service's resources under /app: a valid token for the listing, and for each greeting
 * a role, checked after the handler.
 */
export function resourceRoutes(deps: ResourceRouteDeps): Route[] {
  // The AccountActor answers with the same (frozen) listing while users and roles are unchanged, so
  // its JSON is kept with it and written once per change, not once per request.
  const json = new WeakMap<readonly Accounts.AccountView[], string>();
  return [
    route(
      {
        method: 'GET',
        path: '/app/listAll',
        access: bearer(),
        tag,
        summary: 'Every account with its roles',
        replies: { 200: { description: 'The accounts', schema: z.array(S.Account) } },
      },
      async function listAll(ctx) {
        const users = replyValue(
          await ask(
            deps.accounts,
            Accounts.listAccounts({ includePasswordHash: deps.includePasswordHash }),
            deps.askTimeoutMs,
          ),
        );
        let body = json.get(users);
        if (body === undefined) json.set(users, (body = JSON.stringify(users)));
        ctx.type = 'application/json; charset=utf-8';
        ctx.body = body;
      },
    ),
    greetingRoute('/app/admin', 'ADMIN', 'an administrator'),
    greetingRoute('/app/user', 'USER', 'a user'),
  ];
}

/** The original service's greeting of the holders of a role, checked once the handler has run. */
function greetingRoute(path: string, roleName: string, who: string): Route {
  return route(
    {
      method: 'GET',
      path,
      access: role(roleName),
      tag,
      summary: `A greeting, for users with the ${roleName} role`,
      replies: greeting,
    },
    async function greeting(ctx) {
      ctx.type = 'text/plain; charset=utf-8';
      ctx.body = `Hello ${whoAmI(ctx.state)}, you are ${who}.`;
    },
  );
}

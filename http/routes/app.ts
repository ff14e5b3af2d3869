import Router from '@koa/router';
import * as Token from '../../actors/token/protocol.ts';
import { ask } from '../../src/messaging/ask.ts';
import type { Ref } from '../../src/messaging/nact.ts';
import { hasRole, postAuthorize } from '../middleware/post-authorize.ts';
import { problemFromReply } from '../problems.ts';
import type { AppState } from '../state.ts';

export interface AppDeps {
  readonly token: Ref<Token.Command>;
  readonly askTimeoutMs: number;
  readonly includePasswordHash: boolean;
}

const whoAmI = (state: AppState): string => (state.auth?.enabled ? state.auth.principal.username : 'anonymous');

/** The secured service's resources under /app (the bearer guard sits in front of this router). */
export function appRoutes(deps: AppDeps): Router<AppState> {
  const router = new Router<AppState>({ prefix: '/app' });

  router.get('/listAll', async function listAll(ctx) {
    const reply = await ask(deps.token, Token.listUsers(), deps.askTimeoutMs);
    if (!reply.ok) throw problemFromReply(reply.code, reply.message);
    ctx.body = deps.includePasswordHash ? reply.value : reply.value.map(({ password: _, ...user }) => user);
  });

  router.get('/admin', postAuthorize(hasRole('ADMIN'), async function adminGreeting(ctx) {
    ctx.type = 'text/plain; charset=utf-8';
    ctx.body = `Hello ${whoAmI(ctx.state)}, you are an administrator.`;
  }));

  router.get('/user', postAuthorize(hasRole('USER'), async function userGreeting(ctx) {
    ctx.type = 'text/plain; charset=utf-8';
    ctx.body = `Hello ${whoAmI(ctx.state)}, you are a user.`;
  }));

  return router;
}

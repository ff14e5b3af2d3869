import type { Context } from 'koa';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { hasRole, postAuthorize } from '../../http/middleware/post-authorize.ts';
import { OAuthError } from '../../http/problems.ts';
import type { AppState } from '../../http/state.ts';
import type { Principal } from '../../src/security/jwt.ts';

const t = suite('postAuthorize');

const principal = (authorities: string[]): Principal => ({ username: 'u', clientId: 'c', scope: ['read'], authorities, jti: 'j', exp: 0, iat: 0 });

function fakeCtx(state: Partial<AppState>): Context & { removed: string[] } {
  const removed: string[] = [];
  return { state, body: undefined, removed, remove: (h: string) => removed.push(h) } as unknown as Context & { removed: string[] };
}

t('the handler runs first; with the role its result is kept', async () => {
  const calls: string[] = [];
  const mw = postAuthorize(hasRole('ADMIN'), async (c) => { calls.push('handler'); c.body = 'secret'; });
  const c = fakeCtx({ auth: { enabled: true, principal: principal(['ADMIN']) } });
  await mw(c as never, async () => {});
  assert.equal(calls, ['handler']);
  assert.is(c.body, 'secret');
});

t('without the role the handler still ran, and its result is discarded for a 403', async () => {
  const calls: string[] = [];
  const mw = postAuthorize(hasRole('ADMIN'), async (c) => { calls.push('handler'); c.body = 'secret'; });
  const c = fakeCtx({ auth: { enabled: true, principal: principal(['USER']) } });
  try {
    await mw(c as never, async () => {});
    assert.unreachable('should deny');
  } catch (error) {
    assert.instance(error, OAuthError);
    assert.is((error as OAuthError).status, 403);
    assert.is((error as OAuthError).error, 'access_denied');
  }
  assert.equal(calls, ['handler']);
  assert.is(c.body, null);
});

t('with security disabled every result is sent; with no auth decision at all it is denied', async () => {
  const mw = postAuthorize(hasRole('ADMIN'), async (c) => { c.body = 'open'; });
  const open = fakeCtx({ auth: { enabled: false } });
  await mw(open as never, async () => {});
  assert.is(open.body, 'open');
  const unknown = fakeCtx({});
  try {
    await mw(unknown as never, async () => {});
    assert.unreachable('should deny');
  } catch (error) {
    assert.instance(error, OAuthError);
  }
});

t.run();

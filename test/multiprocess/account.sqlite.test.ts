/**
 * The account page across two instances on one SQLite data directory: its forms' CSRF key comes
 * from the signing keys in the store, so a page served by one is posted to the other; a
 * withdrawal at one is gone from the other's page, and signing out everywhere at one ends the
 * session at the other at once (each request reads the session from the store).
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { accountPage, allowPartner, csrfOf, Jar, postAccount, signInToAccount } from '../helpers/account-page.ts';
import type { ChildServer } from '../helpers/child.ts';
import { CLIENTS, clientsFile, PARTNER } from '../helpers/clients.ts';
import { startInstances, type Instances } from '../helpers/instances.ts';

interface Ctx {
  instances: Instances;
  a: ChildServer;
  b: ChildServer;
}
const ctx = {} as Ctx;
const t = suite('the account page across instances (SQLite)', ctx);

t.before(async () => {
  ctx.instances = await startInstances(2, { SECURITY_CLIENTS_FILE: clientsFile(CLIENTS) });
  const [a, b] = ctx.instances.servers;
  if (!a || !b) throw new Error('two instances expected');
  Object.assign(ctx, { a, b });
});
t.after(async () => ctx.instances?.close());

t('a page of one instance withdraws and signs out at the other; the first sees it at once', async () => {
  await allowPartner(ctx.a.url);
  const jar = new Jar();
  assert.is((await signInToAccount(ctx.a.url, jar)).status, 303);
  const page = await accountPage(ctx.a.url, jar);
  assert.match(page.html, /Partner reports/);
  const removed = await postAccount(ctx.b.url, '/withdraw', jar, { csrf_token: csrfOf(page), client_id: PARTNER.id });
  assert.is(removed.status, 303);
  assert.not.match((await accountPage(ctx.a.url, jar)).html, /Partner reports/, 'gone at the first instance');
  const other = new Jar();
  assert.is((await signInToAccount(ctx.b.url, other)).status, 303, 'a second browser, at the other instance');
  const out = await postAccount(ctx.b.url, '/sign-out', jar, { csrf_token: csrfOf(page) });
  assert.is(out.status, 200);
  const there = await accountPage(ctx.a.url, other);
  assert.match(there.html, /name="password"/, 'the other browser’s session ended at the first instance too');
});

t.run();

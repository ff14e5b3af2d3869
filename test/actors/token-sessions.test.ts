/**
 * Sign-in sessions in TokenActor: a sign-in whose password matched begins one; `AuthorizeSignedIn`
 * issues a code through it at the time of that sign-in (or asks for the password); `EndSession`,
 * `ListSessions` and `EndSessions` sign out, across processes (two TokenActors on one SQLite file);
 * the account page's `SignIn` begins one for no client, and `GetSession` names its account.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import * as Token from '../../actors/token/protocol.ts';
import { ask } from '../../src/messaging/ask.ts';
import type { Client } from '../../src/security/clients.ts';
import { s256 } from '../../src/security/pkce.ts';
import { accountSubject } from '../../src/security/subjects.ts';
import { sqliteAccountStore } from '../../src/stores/account-store.sqlite.ts';
import { CLIENT, processesOnOneFile, type TokenActorSetup } from '../helpers/token-actor.ts';

const t = suite('TokenActor: sign-in sessions');
const startProcess = processesOnOneFile(t, 'sessions');

const WEB: Client = {
  ...CLIENT,
  clientId: 'web-app',
  grantTypes: ['authorization_code'],
  redirectUris: ['https://app.example/callback'],
};
const TERMS = {
  clientId: WEB.clientId,
  redirectUri: 'https://app.example/callback',
  codeChallenge: s256('v'.repeat(43)),
};
const clock = { now: Date.now() };

const aProcess = (): Promise<TokenActorSetup> => startProcess({ clients: [CLIENT, WEB], now: () => clock.now });

async function signIn(p: TokenActorSetup, replacing?: string) {
  const reply = await ask(
    p.token,
    Token.authorize({ ...TERMS, username: 'john.doe', password: 'john-password', replacing }),
    5000,
  );
  if (!reply.ok) throw new Error(reply.code);
  return reply.value.session;
}

const bySession = (
  p: TokenActorSetup,
  session: string,
  more: { maxAge?: number | undefined; subject?: string | undefined } = {},
) => ask(p.token, Token.authorizeSignedIn({ ...TERMS, session, ...more }), 5000);

t('a sign-in begins a session; through it another process issues a code, no password', async () => {
  const [one, two] = [await aProcess(), await aProcess()];
  const session = await signIn(one);
  assert.match(session.value, /^[A-Za-z0-9_-]{43}$/);
  assert.is(session.expiresAt, Math.floor(clock.now / 1000) + 3600);
  const reply = await bySession(two, session.value);
  assert.ok(reply.ok && 'code' in reply.value, 'a code');
  const none = await bySession(two, 'x'.repeat(43));
  assert.equal(none.ok && none.value, { signIn: 'required' });
});

t('max_age: the password again once that many seconds have passed since it was checked', async () => {
  const p = await aProcess();
  const session = await signIn(p);
  clock.now += 10_000;
  assert.ok((await bySession(p, session.value, { maxAge: 11 })).ok);
  const old = await bySession(p, session.value, { maxAge: 10 });
  assert.equal(old.ok && old.value, { signIn: 'required' });
  const zero = await bySession(p, session.value, { maxAge: 0 });
  assert.equal(zero.ok && zero.value, { signIn: 'required' });
});

t("a hint's subject: the session's own account only", async () => {
  const p = await aProcess();
  const session = await signIn(p);
  const account = await sqliteAccountStore(p.db).findByUsername('john.doe');
  const own = await bySession(p, session.value, { subject: accountSubject(account?.id ?? 0) });
  assert.ok(own.ok && 'code' in own.value);
  const other = await bySession(p, session.value, { subject: accountSubject((account?.id ?? 0) + 1) });
  assert.equal(other.ok && other.value, { signIn: 'required' });
});

t('a new sign-in ends the session it replaces; EndSession signs out once, in every process', async () => {
  const [one, two] = [await aProcess(), await aProcess()];
  const first = await signIn(one);
  const second = await signIn(one, first.value);
  const ended = await bySession(two, first.value);
  assert.equal(ended.ok && ended.value, { signIn: 'required' }, 'replaced');
  const out = await ask(two.token, Token.endSession({ session: second.value }), 5000);
  assert.ok(out.ok && out.value !== null && out.value.accountId > 0);
  assert.equal(await ask(one.token, Token.endSession({ session: second.value }), 5000), { ok: true, value: null });
  const gone = await bySession(one, second.value);
  assert.equal(gone.ok && gone.value, { signIn: 'required' });
});

t('SignOut: a hint of another account leaves the session going; its own ends it once, in every process', async () => {
  const [one, two] = [await aProcess(), await aProcess()];
  const session = await signIn(one);
  const account = await sqliteAccountStore(one.db).findByUsername('john.doe');
  const id = account?.id ?? 0;
  const other = await ask(two.token, Token.signOut({ session: session.value, subject: accountSubject(id + 1) }), 5000);
  assert.equal(other, { ok: true, value: { otherAccount: true } });
  const still = await bySession(one, session.value);
  assert.ok(still.ok && 'code' in still.value, 'left going');
  const out = await ask(two.token, Token.signOut({ session: session.value, subject: accountSubject(id) }), 5000);
  assert.equal(out, { ok: true, value: { ended: { accountId: id, username: 'john.doe' } } });
  const gone = await bySession(one, session.value);
  assert.equal(gone.ok && gone.value, { signIn: 'required' }, 'ended in the other process');
  assert.equal(await ask(one.token, Token.signOut({ session: session.value }), 5000), {
    ok: true,
    value: { ended: null },
  });
  const unhinted = await signIn(one);
  const any = await ask(one.token, Token.signOut({ session: unhinted.value }), 5000);
  assert.ok(any.ok && 'ended' in any.value && any.value.ended?.username === 'john.doe', 'no subject: any account');
});

t('ListSessions shows times only; EndSessions ends every session of the account', async () => {
  const [one, two] = [await aProcess(), await aProcess()];
  const a = await signIn(one);
  await signIn(two);
  const id = (await sqliteAccountStore(one.db).findByUsername('john.doe'))?.id ?? 0;
  const listed = await ask(two.token, Token.listSessions({ accountId: id }), 5000);
  assert.ok(listed.ok);
  assert.ok(listed.value.length >= 2);
  for (const s of listed.value) assert.equal(Object.keys(s).sort(), ['authTime', 'createdAt', 'expiresAt']);
  const ended = await ask(one.token, Token.endSessions({ accountId: id }), 5000);
  assert.ok(ended.ok && ended.value.ended >= 2);
  const gone = await bySession(two, a.value);
  assert.equal(gone.ok && gone.value, { signIn: 'required' });
  assert.equal(await ask(two.token, Token.listSessions({ accountId: id }), 5000), { ok: true, value: [] });
});

t('SignIn: a session for no client, as the sign-in checks the password; GetSession reads it anywhere', async () => {
  const [one, two] = [await aProcess(), await aProcess()];
  const wrong = await ask(one.token, Token.signIn({ username: 'john.doe', password: 'not-johns' }), 5000);
  assert.equal(wrong.ok ? 'signed in' : wrong.code, 'grant.invalid');
  const reply = await ask(one.token, Token.signIn({ username: 'john.doe', password: 'john-password' }), 5000);
  if (!reply.ok) throw new Error(reply.code);
  assert.is(reply.value.username, 'john.doe');
  const session = reply.value.session.value;
  const id = (await sqliteAccountStore(one.db).findByUsername('john.doe'))?.id ?? 0;
  const current = await ask(two.token, Token.getSession({ session }), 5000);
  assert.equal(current, { ok: true, value: { accountId: id, username: 'john.doe' } });
  const code = await bySession(two, session);
  assert.ok(code.ok && 'code' in code.value, 'the session signs in at the authorization endpoint too');
  const again = await ask(
    two.token,
    Token.signIn({ username: 'john.doe', password: 'john-password', replacing: session }),
    5000,
  );
  assert.ok(again.ok, 'a new sign-in');
  assert.equal(await ask(one.token, Token.getSession({ session }), 5000), { ok: true, value: null }, 'replaced');
  assert.equal(await ask(one.token, Token.getSession({ session: 'nonsense' }), 5000), { ok: true, value: null });
  if (!again.ok) return;
  await ask(one.token, Token.endSessions({ accountId: id }), 5000);
  const ended = await ask(two.token, Token.getSession({ session: again.value.session.value }), 5000);
  assert.equal(ended, { ok: true, value: null });
});

t.run();

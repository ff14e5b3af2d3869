/**
 * RequestOf: a protocol's builder takes its message and reply types from the message of its kind.
 * The `@ts-expect-error` lines fail `npm run typecheck` if a builder could build another kind, or
 * if a reply type stopped following its message's `sender`.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import * as Accounts from '../../actors/accounts/protocol.ts';
import { ask, type MessageOf, type ReplyOf, type RequestOf } from '../../src/messaging/ask.ts';
import { spawn, startSystem, stopSystem, tell, type ActorSystem } from '../../src/messaging/nact.ts';
import { fail, ok } from '../../src/messaging/reply.ts';
import { createProbe } from '../helpers/probe.ts';

/** True only when `A` and `B` are the same type. */
type Same<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
const same = <A, B>(proof: Same<A, B>): Same<A, B> => proof;

const ctx = { system: undefined as unknown as ActorSystem };
const t = suite('messaging: RequestOf, a builder typed by its message', ctx);

t.before.each(() => {
  ctx.system = startSystem(`request-${Math.random().toString(36).slice(2)}`);
});
t.after.each(() => stopSystem(ctx.system));

t("a message's reply is what its sender takes, and a builder's is its message's", () => {
  assert.ok(same<ReplyOf<MessageOf<Accounts.Command, 'GetAccount'>>, Accounts.GetReply>(true));
  assert.ok(same<ReturnType<typeof Accounts.deleteAccount>, RequestOf<Accounts.Command, 'DeleteAccount'>>(true));
  assert.ok(same<ReplyOf<MessageOf<Accounts.Command, 'ChangeOwnPassword'>>, Accounts.OwnPasswordReply>(true));
  // @ts-expect-error each kind has its own reply
  assert.ok(same<ReplyOf<MessageOf<Accounts.Command, 'GetAccount'>>, Accounts.DeleteReply>(true));
});

t('a builder builds the message of its kind only, with the fields of that kind', () => {
  type Get = RequestOf<Accounts.Command, 'GetAccount'>;
  type Delete = RequestOf<Accounts.Command, 'DeleteAccount'>;
  const sender = createProbe<Accounts.GetReply>(ctx.system).ref;
  const get: Get = (s) => ({ type: 'GetAccount', id: 2, sender: s });
  assert.equal(get(sender), { type: 'GetAccount', id: 2, sender });
  // @ts-expect-error a builder of one kind cannot build another
  const other: Get = (s) => ({ type: 'DeleteAccount', id: 2, actor: 'a', sender: s });
  // @ts-expect-error nor leave out a field of its own kind
  const short: Delete = (s) => ({ type: 'DeleteAccount', id: 2, sender: s });
  assert.type(other, 'function');
  assert.type(short, 'function');
});

t("ask with a protocol's builder resolves to that message's reply", async () => {
  const accounts = spawn<null, Accounts.Command>(
    ctx.system,
    (state, msg) => {
      if (msg.type === 'GetAccount') {
        const summary = {
          id: msg.id,
          username: 'jane',
          firstName: '',
          lastName: '',
          email: null,
          roles: [],
          enabled: true,
        };
        tell(msg.sender, msg.id === 2 ? ok(summary) : fail('account.not_found', 'No such account'));
      }
      return state;
    },
    { name: 'accounts', initialState: () => null },
  );
  const found: Accounts.GetReply = await ask(accounts, Accounts.getAccount({ id: 2 }), 1000);
  assert.equal(found.ok && found.value.username, 'jane');
  const missing = await ask(accounts, Accounts.getAccount({ id: 3 }), 1000);
  assert.is(!missing.ok && missing.code, 'account.not_found');
  // @ts-expect-error GetAccount answers no code but its own and the system's
  assert.ok(missing.ok || missing.code !== 'account.last_admin');
});

t.run();

/**
 * Work beside TokenActor's mailbox is bounded: its mailbox only dispatches, so it never fills, and
 * each grant handed off counts against `actors.mailbox-limit` until it is answered. Past the bound
 * a request is refused at once (`MailboxFullError`, HTTP's 503 with `Retry-After`), never queued;
 * an answer frees its place.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import * as Token from '../../actors/token/protocol.ts';
import { ask, MailboxFullError } from '../../src/messaging/ask.ts';
import { mailboxSize } from '../../src/messaging/introspection.ts';
import { startSystem, stopSystem, type ActorSystem } from '../../src/messaging/nact.ts';
import { limitMailbox } from '../../src/messaging/reply-slots.ts';
import type { Client } from '../../src/security/clients.ts';
import { createPasswordHasher, type PasswordHasher } from '../../src/security/passwords.ts';
import { gate, heldSigner, type Gate } from '../helpers/gate.ts';
import { CLIENT, okValue, startTokenActor, type TokenActorSetup } from '../helpers/token-actor.ts';

const REPORTING: Client = { ...CLIENT, clientId: 'reporting-service', grantTypes: ['client_credentials'] };
const LIMIT = 3;

interface Ctx {
  system: ActorSystem;
  hasher: PasswordHasher;
  setup: TokenActorSetup;
  /** The next signatures wait at these gates, one each, once they are made. */
  holds: Gate[];
}
const ctx = { holds: [] } as unknown as Ctx;
const t = suite('TokenActor: work beside the mailbox is bounded', ctx);

t.before(() => {
  ctx.hasher = createPasswordHasher(2);
});
t.after(async () => {
  await ctx.hasher.close();
});
t.before.each(async () => {
  ctx.holds = [];
  ctx.system = startSystem('token-work-bound-test');
  const held = heldSigner(() => ctx.holds.shift());
  ctx.setup = await startTokenActor(ctx.system, { hasher: ctx.hasher, clients: [CLIENT, REPORTING], signer: held });
  limitMailbox(ctx.setup.token, LIMIT);
});
t.after.each(() => {
  stopSystem(ctx.system);
  ctx.setup.db.close();
});

const grant = () => ask(ctx.setup.token, Token.clientCredentials({ clientId: 'reporting-service' }), 10_000);

t(
  'grants held beside the mailbox fill the bound; the next is refused at once; an answer lets the next in',
  async () => {
    const holds = Array.from({ length: LIMIT + 1 }, () => gate());
    ctx.holds.push(...holds);
    const admitted = Array.from({ length: LIMIT }, () => grant());
    await Promise.all(holds.slice(0, LIMIT).map((hold) => hold.reached));
    assert.is(mailboxSize(ctx.setup.token), 0, 'the mailbox is empty: the work runs beside it');

    const refused = await grant().then(
      () => undefined,
      (error: unknown) => error,
    );
    assert.instance(refused, MailboxFullError, 'refused without being sent');

    holds[0]?.release();
    okValue(await admitted[0]!);
    const next = grant(); // a place is free again
    await holds[LIMIT]?.reached;
    for (const hold of holds) hold.release();
    for (const reply of await Promise.all([...admitted, next])) okValue(reply);
  },
);

t('a grant held beside the mailbox takes one place: other messages are still served within the bound', async () => {
  const hold = gate();
  ctx.holds.push(hold);
  const held = grant();
  await hold.reached;
  // One place taken: the rest still serve, each answered and its place freed.
  for (let i = 0; i < 5; i++) {
    const reply = await ask(
      ctx.setup.token,
      Token.introspect({ clientId: 'troupe-client', token: 'not-a-token' }),
      10_000,
    );
    assert.equal(okValue(reply), { active: false });
  }
  hold.release();
  okValue(await held);
});

t.run();

/** The TokenActor's housekeeping timer: one for the actor's life, whatever its supervisor decides. */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import * as Token from '../../actors/token/protocol.ts';
import { startSystem, stop, stopSystem, tell, type Ref } from '../../src/messaging/nact.ts';
import { createPasswordHasher } from '../../src/security/passwords.ts';
import { createProbe } from '../helpers/probe.ts';
import { startTokenActor } from '../helpers/token-actor.ts';
import { waitFor } from '../helpers/wait.ts';

const t = suite('TokenActor: the purge timer');

/** Counts the intervals started and not yet cleared while `body` runs. */
async function countingIntervals(body: (live: () => number) => Promise<void>): Promise<void> {
  const started = new Set<NodeJS.Timeout>();
  const { setInterval: realSet, clearInterval: realClear } = globalThis;
  globalThis.setInterval = ((...args: Parameters<typeof realSet>) => {
    const timer = realSet(...args);
    started.add(timer);
    return timer;
  }) as typeof realSet;
  globalThis.clearInterval = ((timer?: Parameters<typeof realClear>[0]) => {
    if (timer && typeof timer === 'object') started.delete(timer);
    realClear(timer);
  }) as typeof realClear;
  try {
    await body(() => started.size);
  } finally {
    globalThis.setInterval = realSet;
    globalThis.clearInterval = realClear;
  }
}

t('three supervised crashes leave one live timer, and stopping the actor clears it', async () => {
  const hasher = createPasswordHasher(2);
  const system = startSystem('token-timer-test');
  const closing: (() => void)[] = [];
  try {
    await countingIntervals(async (live) => {
      const { token: watched, db } = await startTokenActor(system, { hasher, onCrash: () => 'resume' });
      closing.push(() => db.close());
      assert.is(live(), 1, 'one timer once the actor is spawned');
      const probe = createProbe<Token.IntrospectReply>(system);
      for (let crash = 0; crash < 3; crash++) {
        // An internal completion carrying a failure makes the handler throw: the supervisor resumes.
        tell(watched as Ref<unknown>, { type: 'WorkFailed', error: new Error('boom'), sender: probe.ref });
        tell(watched, Token.introspect({ clientId: 'troupe-client', token: 'not-a-token' })(probe.ref));
        assert.ok((await probe.expectMessage(5000)).ok, 'the actor answers after its crash');
      }
      assert.is(live(), 1, 'crashes start no timer');
      stop(watched);
      await waitFor(() => live() === 0, 'the timer cleared by the stop', 5000, 10);
    });
  } finally {
    stopSystem(system);
    await hasher.close();
    for (const close of closing) close();
  }
});

t.run();

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ask } from '../../src/messaging/ask.ts';
import { spawn, startSystem, stopSystem, tell, type Ref } from '../../src/messaging/nact.ts';
import { pendingAsks } from '../../src/messaging/introspection.ts';

type Msg = { type: 'Hold'; sender: Ref<string> } | { type: 'Release' };

const hold = (sender: Ref<string>): Msg => ({ type: 'Hold', sender });

const t = suite('messaging: pendingAsks');

t('counts the asks that wait for a reply, and drops each once it is answered', async () => {
  const system = startSystem(`test-${Math.random().toString(36).slice(2)}`);
  try {
    // Keeps the senders of Hold until Release, then answers them all.
    const holder = spawn<Ref<string>[], Msg>(
      system,
      (held, msg) => {
        if (msg.type === 'Hold') return [...held, msg.sender];
        for (const sender of held) tell(sender, 'released');
        return [];
      },
      { name: 'holder', initialState: () => [] },
    );
    assert.is(pendingAsks(system), 0);
    const first = ask(holder, hold, 60_000);
    const second = ask(holder, hold, 60_000);
    assert.is(pendingAsks(system), 2);
    tell(holder, { type: 'Release' });
    assert.equal(await Promise.all([first, second]), ['released', 'released']);
    assert.is(pendingAsks(system), 0);
  } finally {
    stopSystem(system);
  }
});

t.run();

// Stopped ActivityActors give their memory back: rounds of many short-lived actors leave the heap,
// after a full collection, where it started. (Bench claim 6 weighs the same in a server, after full
// collections too: sampled, its resident set still holds actors V8 has not yet collected.)
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { expectBelow } from '../helpers/bounds.ts';
import { heapMiB } from '../helpers/heap.ts';
import * as Activity from '../../actors/activity/protocol.ts';
import { spawnActivityRouter } from '../../actors/activity/router.ts';
import { newId } from '../../src/ids.ts';
import { ask } from '../../src/messaging/ask.ts';
import { startSystem, stopSystem } from '../../src/messaging/nact.ts';
import { actorTree } from '../../src/messaging/introspection.ts';
import { replyThenResume } from '../../src/messaging/supervision.ts';
import { sqliteActivityStore } from '../../src/stores/activity-store.sqlite.ts';
import { openDatabase } from '../../src/stores/sqlite.ts';
import { waitFor } from '../helpers/wait.ts';

const t = suite('ActivityActors: memory after idle stops');

t('rounds of 5,000 short-lived actors leave the heap where it started', async () => {
  const db = openDatabase(':memory:', { synchronous: 'NORMAL' });
  const system = startSystem(`memory-${process.pid}`);
  const router = spawnActivityRouter(system, {
    store: sqliteActivityStore(db),
    idleMs: 1500,
    maxLive: 5000, // every actor of a round alive at once: what is measured is what their stops give back
    onCrash: () => replyThenResume(() => {}),
  });
  const live = (): number => actorTree(system)[0]?.children.length ?? 0;
  try {
    const before = heapMiB();
    let peak = 0;
    for (let round = 0; round < 3; round++) {
      const ids = Array.from({ length: 5000 }, () => newId());
      await Promise.all(ids.map((userId) => ask(router, Activity.history({ userId, limit: 10 }), 30_000)));
      assert.is(live(), 5000, 'every actor was spawned');
      peak = Math.max(peak, heapMiB());
      await waitFor(() => live() === 0, 'every actor stopped when idle', 15_000);
    }
    const after = heapMiB();
    assert.ok(peak - before > 5, `the actors took memory while alive (${(peak - before).toFixed(1)} MiB)`);
    expectBelow(after - before, 5, "the heap's growth after every actor stopped");
  } finally {
    stopSystem(system);
    db.close();
  }
});

t.run();

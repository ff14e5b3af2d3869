/**
 * The one purge schedule: hourly, never keeping the process alive, stopped by what it returns; a
 * purge beside any actor that fails is handed to its error handler and the next one still runs.
 * The interval timer is stood in for, so that an hour passes at once.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { everyPurge, purgeHourly, PURGE_EVERY_MS } from '../../src/security/purge-schedule.ts';

interface Timer {
  readonly tick: () => void;
  readonly ms: number | undefined;
  unrefed: boolean;
  cleared: boolean;
}

const t = suite('security: the purge schedule', {} as { timers: Timer[]; restore: () => void });
t.before.each((c) => {
  c.timers = [];
  const { setInterval: realSet, clearInterval: realClear } = globalThis;
  globalThis.setInterval = ((tick: () => void, ms?: number) => {
    const timer: Timer = { tick, ms, unrefed: false, cleared: false };
    c.timers.push(timer);
    return {
      unref() {
        timer.unrefed = true;
        return this;
      },
      timer,
    };
  }) as unknown as typeof setInterval;
  globalThis.clearInterval = ((handle: { timer?: Timer } | undefined) => {
    if (handle?.timer) handle.timer.cleared = true;
  }) as unknown as typeof clearInterval;
  c.restore = () => {
    globalThis.setInterval = realSet;
    globalThis.clearInterval = realClear;
  };
});
t.after.each((c) => c.restore());

const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

t('every purge is hourly, does not keep the process alive, and stops when asked', (c) => {
  assert.is(PURGE_EVERY_MS, 3_600_000);
  let ticks = 0;
  const stop = everyPurge(() => ticks++);
  const [timer] = c.timers;
  assert.is(timer?.ms, PURGE_EVERY_MS);
  assert.ok(timer?.unrefed, 'the schedule keeps the process alive');
  timer?.tick();
  assert.is(ticks, 1);
  stop();
  assert.ok(timer?.cleared);
});

t('a failed purge goes to its handler, and the next one runs', async (c) => {
  const errors: unknown[] = [];
  let runs = 0;
  const stop = purgeHourly(
    async () => {
      runs++;
      if (runs === 1) throw new Error('the store is out of reach');
    },
    (error) => errors.push(error),
  );
  const [timer] = c.timers;
  assert.is(timer?.ms, PURGE_EVERY_MS);
  assert.ok(timer?.unrefed);
  timer?.tick();
  await settle();
  timer?.tick();
  await settle();
  assert.is(runs, 2);
  assert.is(errors.length, 1);
  assert.match(String(errors[0]), 'out of reach');
  stop();
  assert.ok(timer?.cleared);
});

t.run();

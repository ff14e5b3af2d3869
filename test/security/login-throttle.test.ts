import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { heapMiB } from '../helpers/heap.ts';
import { createLoginThrottle, type Admission, type Attempt } from '../../src/security/login-throttle.ts';

const admitted = (a: Admission): Attempt => {
  if ('retryAfter' in a) throw new Error(`refused for ${a.retryAfter} s`);
  return a.attempt;
};
const refused = (a: Admission): boolean => 'retryAfter' in a;

const t = suite('security: login throttle');

t('attempts count before their check: no more than the limit are admitted at once', async () => {
  const throttle = createLoginThrottle({ maxFailuresPerUser: 3, maxFailuresPerAddress: 100, windowSeconds: 60 });
  const all = await Promise.all(Array.from({ length: 10 }, () => throttle.begin('ann', '10.0.0.1')));
  assert.is(all.filter(refused).length, 7);
  const clients = await Promise.all(Array.from({ length: 150 }, () => throttle.beginClient('10.0.0.2')));
  assert.is(clients.filter(refused).length, 50);
});

t('a success gives its count back; a failure keeps it; an attempt never judged gives it back', async () => {
  const throttle = createLoginThrottle({ maxFailuresPerUser: 2, maxFailuresPerAddress: 100, windowSeconds: 60 });
  await admitted(await throttle.begin('bo', '10.0.0.1')).abandoned();
  await admitted(await throttle.begin('bo', '10.0.0.1')).succeeded();
  await admitted(await throttle.begin('bo', '10.0.0.1')).failed();
  await admitted(await throttle.begin('bo', '10.0.0.1')).failed();
  assert.ok(refused(await throttle.begin('bo', '10.0.0.1')), 'two failures reach the limit of 2');
});

t('refused attempts leave nothing behind: 20,000 with 2 KiB usernames keep no memory', async () => {
  const throttle = createLoginThrottle({ maxFailuresPerUser: 5, maxFailuresPerAddress: 1, windowSeconds: 600 });
  await admitted(await throttle.begin('first', '10.0.0.9')).failed(); // the address is now at its limit
  const before = heapMiB();
  for (let i = 0; i < 20_000; i++) assert.ok(refused(await throttle.begin(`${i}-${'x'.repeat(2048)}`, '10.0.0.9')));
  const grown = heapMiB() - before;
  assert.ok(grown < 4, `the heap grew by ${grown.toFixed(1)} MiB`);
});

t('a count given back after its window ended does not cancel a count of the next window', async () => {
  const throttle = createLoginThrottle({ maxFailuresPerUser: 1, maxFailuresPerAddress: 100, windowSeconds: 1 });
  const old = admitted(await throttle.begin('cy', '10.0.0.1'));
  await new Promise((resolve) => setTimeout(resolve, 1100));
  await admitted(await throttle.begin('cy', '10.0.0.1')).failed(); // the new window's one failure
  await old.abandoned();
  assert.ok(refused(await throttle.begin('cy', '10.0.0.1')), 'the new window is still at its limit');
});

t.run();

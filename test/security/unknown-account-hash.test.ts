/**
 * The hash an unknown username is compared against: at the cost most stored hashes have, followed
 * through the store's change count, never waited for by the lookup.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { costOf } from '../../src/security/passwords.ts';
import { createUnknownAccountHash, prevailingCost } from '../../src/security/unknown-account-hash.ts';
import type { AccountRecord } from '../../src/stores/account-store.ts';

/** A hash of `cost` as far as its prefix goes (nothing here compares it). */
const at = (cost: number, n = 0): string => `$2b$${String(cost).padStart(2, '0')}$${String(n).padEnd(53, 'x')}`;

/** Accounts whose hashes have these costs; the count moves when `set` is called. */
function fakeStore(costs: readonly number[]) {
  const state = { costs: [...costs], count: 1, countReads: 0, listings: 0, failing: false };
  const account = (cost: number, id: number): AccountRecord => ({
    id,
    username: `user-${id}`,
    password: at(cost, id),
    firstName: '',
    lastName: '',
    email: null,
    roles: [],
    enabled: true,
    securityVersion: 0,
    updatedAt: 1,
  });
  return {
    state,
    set(next: readonly number[]) {
      state.costs = [...next];
      state.count++;
    },
    accounts: {
      changeCount: () => {
        state.countReads++;
        return state.failing ? Promise.reject(new Error('the store cannot be reached')) : Promise.resolve(state.count);
      },
      listAll: () => {
        state.listings++;
        return Promise.resolve(state.costs.map(account));
      },
    },
  };
}

/** A hasher double that notes the cost of every hash it is asked to make. */
function recordingHasher() {
  const costs: number[] = [];
  return {
    costs,
    passwords: {
      hash: (_password: string, cost = 10) => {
        costs.push(cost);
        return Promise.resolve(at(cost, costs.length));
      },
    },
  };
}

async function start(costs: readonly number[], configuredCost = 13) {
  const store = fakeStore(costs);
  const hasher = recordingHasher();
  const errors: unknown[] = [];
  const unknown = await createUnknownAccountHash({
    accounts: store.accounts,
    passwords: hasher.passwords,
    configuredCost,
    onError: (error) => errors.push(error),
  });
  return { store, hasher, errors, unknown };
}

const t = suite('security: the hash compared for an unknown username');

t('prevailingCost › the cost most hashes have, whatever the configured one', () => {
  assert.is(prevailingCost([at(10), at(10), at(13)], 13), 10);
  assert.is(prevailingCost([at(13), at(13), at(10)], 10), 13);
  assert.is(prevailingCost([`{bcrypt}${at(12)}`, at(12), at(10)], 10), 12, 'Spring-prefixed hashes count');
  assert.is(prevailingCost(['$2a$11$' + 'x'.repeat(53), '$2y$11$' + 'x'.repeat(53), at(10)], 10), 11);
});

t('prevailingCost › the configured cost when nothing is stored or readable, or when it ties', () => {
  assert.is(prevailingCost([], 12), 12);
  assert.is(prevailingCost(['not-a-hash', at(3), at(32), at(99)], 12), 12, 'costs BCrypt cannot compute are left out');
  assert.is(prevailingCost([at(10), at(12)], 12), 12);
  assert.is(prevailingCost([at(10), at(11), at(14)], 12), 14, 'otherwise the highest of a tie');
});

t('starts at the configured cost, then follows the stored hashes (cost 10 while configured 13)', async () => {
  const { unknown, hasher } = await start([10, 10, 10], 13);
  await unknown.settled();
  assert.is(costOf(unknown.current()), 10);
  assert.equal(hasher.costs, [13, 10]);
});

t('configured 10 while most stored hashes are cost 13 → cost 13', async () => {
  const { unknown } = await start([13, 13, 10], 10);
  await unknown.settled();
  assert.is(costOf(unknown.current()), 13);
});

t('the lookup reads nothing before it answers; one check at a time; no re-read while the count stays', async () => {
  const { unknown, store } = await start([10]);
  await unknown.settled();
  const reads = store.state.countReads;
  const listings = store.state.listings;
  for (let i = 0; i < 5; i++) unknown.current();
  assert.is(store.state.countReads, reads, 'no store read before the answer');
  await unknown.settled();
  assert.is(store.state.countReads, reads + 1, 'the lookups of one turn share one check');
  assert.is(store.state.listings, listings, 'the count has not moved: the hashes are not read again');
});

t('a change of the accounts (the count moves) is followed from the next lookup on', async () => {
  const { unknown, store, hasher } = await start([10, 10], 10);
  await unknown.settled();
  assert.is(costOf(unknown.current()), 10);
  await unknown.settled();
  store.set([12, 12, 10]);
  assert.is(costOf(unknown.current()), 10, 'answered at once, with the hash chosen before');
  await unknown.settled();
  assert.is(costOf(unknown.current()), 12);
  store.set([10, 10, 12]);
  unknown.current();
  await unknown.settled();
  assert.is(costOf(unknown.current()), 10);
  assert.equal(hasher.costs, [10, 12], 'one dummy hash per cost, kept');
});

t('a failed read keeps the hash in use, is reported, and is tried again at the next lookup', async () => {
  const { unknown, store, errors } = await start([10], 12);
  await unknown.settled();
  store.state.failing = true;
  store.set([12]);
  unknown.current();
  await unknown.settled();
  assert.is(errors.length, 1);
  store.state.failing = false;
  assert.is(costOf(unknown.current()), 10, 'the hash in use stays');
  await unknown.settled();
  assert.is(costOf(unknown.current()), 12, 'checked again');
});

t('a store unreadable from the start → the configured cost', async () => {
  const store = fakeStore([10]);
  store.state.failing = true;
  const hasher = recordingHasher();
  const errors: unknown[] = [];
  const unknown = await createUnknownAccountHash({
    accounts: store.accounts,
    passwords: hasher.passwords,
    configuredCost: 11,
    onError: (error) => errors.push(error),
  });
  await unknown.settled();
  assert.is(costOf(unknown.current()), 11);
  assert.is(errors.length, 1);
});

t.run();

/**
 * A matched password hashed again at the configured cost (src/security/password-rehash.ts): only
 * when the stored cost differs, once per account at a time, at most a bound at once, its failures
 * reported and never thrown to the login.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createPasswordRehash } from '../../src/security/password-rehash.ts';
import type { AccountRecord } from '../../src/stores/account-store.ts';
import { gate, type Gate } from '../helpers/gate.ts';

/** A hash of `cost` as far as its prefix goes (nothing here compares it). */
const at = (cost: number, n = 0): string => `$2b$${String(cost).padStart(2, '0')}$${String(n).padEnd(53, 'x')}`;

const account = (id: number, password: string): AccountRecord => ({
  id,
  username: `user-${id}`,
  password,
  firstName: '',
  lastName: '',
  email: null,
  roles: [],
  enabled: true,
  securityVersion: 3,
  updatedAt: 1,
});

/** A hasher and store double: the hashes asked for, the writes made, a gate on the next hash. */
function doubles(options: { failWrite?: boolean } = {}) {
  const state = {
    hashes: [] as { password: string; cost: number | undefined }[],
    writes: [] as [id: number, compared: string, hash: string][],
    errors: [] as unknown[],
    hold: undefined as Gate | undefined,
  };
  const rehash = createPasswordRehash({
    passwords: {
      hash: async (password, cost) => {
        const n = state.hashes.push({ password, cost });
        const held = state.hold;
        state.hold = undefined;
        await held?.wait();
        return at(cost ?? 10, n);
      },
    },
    accounts: {
      replaceHash: async (id, compared, hash) => {
        if (options.failWrite) throw new Error('the store cannot be reached');
        state.writes.push([id, compared, hash]);
        return true;
      },
    },
    bcryptCost: 12,
    onError: (error) => state.errors.push(error),
  });
  return { state, rehash };
}

const t = suite('security: a matched password hashed again at the configured cost');

t('a hash at another cost is replaced by one at the configured cost, over the hash compared', async () => {
  const { state, rehash } = doubles();
  rehash.afterMatch(account(1, at(10)), 'the-password');
  rehash.afterMatch(account(2, at(14)), 'other-password');
  await rehash.settled();
  assert.equal(state.hashes, [
    { password: 'the-password', cost: 12 },
    { password: 'other-password', cost: 12 },
  ]);
  assert.equal(state.writes, [
    [1, at(10), at(12, 1)],
    [2, at(14), at(12, 2)],
  ]);
});

t('a hash at the configured cost, or not a BCrypt hash, is left alone', async () => {
  const { state, rehash } = doubles();
  rehash.afterMatch(account(1, at(12)), 'the-password');
  rehash.afterMatch(account(2, 'not-a-hash'), 'the-password');
  await rehash.settled();
  assert.equal(state.hashes, []);
  assert.equal(state.writes, []);
});

t('returns at once, before the hash is made; one rehash per account at a time', async () => {
  const { state, rehash } = doubles();
  state.hold = gate();
  const hold = state.hold;
  rehash.afterMatch(account(1, at(10)), 'the-password');
  assert.equal(state.writes, [], 'nothing written yet');
  await hold.reached;
  rehash.afterMatch(account(1, at(10)), 'the-password'); // a second login of the account meanwhile
  hold.release();
  await rehash.settled();
  assert.is(state.hashes.length, 1, 'the second was left to the first');
  assert.is(state.writes.length, 1);
});

t('at most 16 under way at once; the rest are left to their next login', async () => {
  const { state, rehash } = doubles();
  state.hold = gate();
  const hold = state.hold;
  for (let id = 1; id <= 20; id++) rehash.afterMatch(account(id, at(10)), 'the-password');
  await hold.reached;
  hold.release();
  await rehash.settled();
  assert.is(state.writes.length, 16);
});

t('a failure is reported, never thrown, and the next login tries again', async () => {
  const { state, rehash } = doubles({ failWrite: true });
  rehash.afterMatch(account(1, at(10)), 'the-password');
  await rehash.settled();
  assert.is(state.errors.length, 1);
  assert.not.ok(String(state.errors[0]).includes('the-password'));
  rehash.afterMatch(account(1, at(10)), 'the-password');
  await rehash.settled();
  assert.is(state.errors.length, 2);
});

t.run();

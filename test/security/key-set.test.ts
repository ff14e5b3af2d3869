import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { initialize, KeySetError, retire, rotate, viewAt, type NewKey } from '../../src/security/key-set.ts';
import type { KeyRecord, KeyUse } from '../../src/stores/key-store.ts';

const t = suite('security: the key set lifecycle');

const VALIDITY = 3600;
const SKEW = 30;
const AHEAD = 600;
const T0 = 1_900_000_000;
const settings = { validity: VALIDITY, publishAhead: AHEAD };
const newKey = (kid: string, createdAt: number, use: KeyUse = 'access'): NewKey => ({
  kid,
  alg: 'ES256',
  use,
  secret: '{}',
  createdAt,
  createdBy: 'test',
});
const states = (records: readonly KeyRecord[], at: number): Record<string, string> =>
  Object.fromEntries(viewAt(records, at, VALIDITY).keys.map((k) => [k.record.kid, k.state]));

function refusedWith(code: string, run: () => unknown): void {
  try {
    run();
    assert.unreachable(`expected ${code}`);
  } catch (error) {
    assert.instance(error, KeySetError);
    assert.is((error as KeySetError).code, code);
  }
}

t('next → active → retired → gone, by the clock alone', () => {
  const first = initialize([], newKey('a', T0), T0, VALIDITY);
  assert.ok(first.result);
  assert.equal(states(first.records, T0), { a: 'active' });
  const rotated = rotate(first.records, newKey('b', T0 + 100), T0 + 100, settings);
  const switchAt = T0 + 100 + AHEAD;
  assert.is(rotated.result.activatesAt, switchAt);
  assert.equal(states(rotated.records, switchAt - 1), { a: 'active', b: 'next' });
  assert.equal(states(rotated.records, switchAt), { a: 'retired', b: 'active' });
  const retired = viewAt(rotated.records, switchAt, VALIDITY).keys.find((k) => k.record.kid === 'a');
  assert.is(retired?.leavesAt, switchAt + VALIDITY + SKEW, 'a retired key verifies until its last token expires');
  assert.equal(states(rotated.records, switchAt + VALIDITY + SKEW - 1), { a: 'retired', b: 'active' });
  assert.equal(states(rotated.records, switchAt + VALIDITY + SKEW), { b: 'active' });
  assert.is(viewAt(rotated.records, switchAt - 1, VALIDITY).changesAt, switchAt);
});

t('initialize adds nothing to a set that has a key; rotate on an empty set activates at once', () => {
  const first = initialize([], newKey('a', T0), T0, VALIDITY);
  const again = initialize(first.records, newKey('x', T0), T0 + 1, VALIDITY);
  assert.is(again.result, false);
  assert.is(again.records, first.records);
  assert.equal(states(rotate([], newKey('b', T0), T0, settings).records, T0), { b: 'active' });
});

t('one rotation at a time', () => {
  const first = initialize([], newKey('a', T0), T0, VALIDITY).records;
  const rotated = rotate(first, newKey('b', T0), T0, settings).records;
  refusedWith('keys.rotation_pending', () => rotate(rotated, newKey('c', T0 + 1), T0 + 1, settings));
  assert.equal(states(rotate(rotated, newKey('c', T0 + AHEAD), T0 + AHEAD, settings).records, T0 + AHEAD), {
    a: 'retired',
    b: 'active',
    c: 'next',
  });
});

t('retire: a next key is dropped, a retired key leaves at once, the only signing key is refused', () => {
  const first = initialize([], newKey('a', T0), T0, VALIDITY).records;
  refusedWith('keys.only_signing_key', () => retire(first, 'a', T0, { validity: VALIDITY, by: 'test' }));
  refusedWith('keys.unknown_kid', () => retire(first, 'nope', T0, { validity: VALIDITY, by: 'test' }));
  const rotated = rotate(first, newKey('b', T0), T0, settings).records;
  const withoutNext = retire(rotated, 'b', T0 + 1, { validity: VALIDITY, by: 'test' }).records;
  assert.equal(states(withoutNext, T0 + AHEAD * 2), { a: 'active' }, 'a dropped next key never activates');
  const later = T0 + AHEAD + 10;
  const out = retire(rotated, 'a', later, { validity: VALIDITY, by: 'alice' }).records;
  assert.equal(states(out, later), { b: 'active' });
  assert.is(out.find((r) => r.kid === 'a')?.removedBy, 'alice');
  refusedWith('keys.unknown_kid', () => retire(out, 'a', later + 1, { validity: VALIDITY, by: 'test' }));
});

t('retire the active key while a next key waits: the next key signs from that moment', () => {
  const first = initialize([], newKey('a', T0), T0, VALIDITY).records;
  const rotated = rotate(first, newKey('b', T0 + 5), T0 + 5, settings).records;
  const out = retire(rotated, 'a', T0 + 10, { validity: VALIDITY, by: 'test' }).records;
  assert.equal(states(out, T0 + 10), { b: 'active' });
  assert.equal(states(out, T0 + 10 + AHEAD * 10), { b: 'active' }, 'the removed key never comes back');
});

t('retiring the active key in the second it activated still hands over to the next key', () => {
  for (const [a, b] of [
    ['a', 'b'],
    ['b', 'a'],
  ] as const) {
    const first = initialize([], newKey(a, T0), T0, VALIDITY).records;
    const rotated = rotate(first, newKey(b, T0), T0, settings).records;
    const out = retire(rotated, a, T0, { validity: VALIDITY, by: 'test' }).records;
    assert.equal(states(out, T0), { [b]: 'active' }, `kids ${a} then ${b}`);
  }
});

t('a rotation with no publish-ahead in the second the active key activated still moves to the new key', () => {
  for (const [a, b] of [
    ['a', 'b'],
    ['b', 'a'],
  ] as const) {
    const first = initialize([], newKey(a, T0), T0, VALIDITY).records;
    const rotated = rotate(first, newKey(b, T0), T0, { validity: VALIDITY, publishAhead: 0 });
    assert.is(rotated.result.activatesAt, T0 + 1);
    assert.equal(states(rotated.records, T0 + 1), { [a]: 'retired', [b]: 'active' }, `kids ${a} then ${b}`);
  }
});

t('a retirement never brings an older key back nor lengthens its life', () => {
  let records = initialize([], newKey('a', T0), T0, VALIDITY).records;
  records = rotate(records, newKey('b', T0), T0, settings).records;
  records = rotate(records, newKey('c', T0 + AHEAD), T0 + AHEAD, settings).records;
  const at = T0 + AHEAD * 2;
  const aLeaves = viewAt(records, at, VALIDITY).keys.find((k) => k.record.kid === 'a')?.leavesAt;
  const out = retire(records, 'b', at, { validity: VALIDITY, by: 'test' }).records;
  assert.equal(states(out, at), { a: 'retired', c: 'active' });
  assert.is(viewAt(out, at, VALIDITY).keys.find((k) => k.record.kid === 'a')?.leavesAt, aLeaves);
});

t('a rotation prunes records that verify nothing any more', () => {
  let records = initialize([], newKey('a', T0), T0, VALIDITY).records;
  records = rotate(records, newKey('b', T0), T0, settings).records;
  const late = T0 + AHEAD + VALIDITY + SKEW + 1;
  records = rotate(records, newKey('c', late), late, settings).records;
  assert.equal(
    records.map((r) => r.kid),
    ['b', 'c'],
  );
});

t('a key joins its own lineage alone; a record of neither use is damaged', () => {
  const access = initialize([], newKey('a', T0), T0, VALIDITY).records;
  assert.throws(() => rotate(access, newKey('i', T0, 'id_token'), T0, settings), /id_token lineage cannot join/);
  assert.throws(() => initialize(access, newKey('i', T0, 'id_token'), T0, VALIDITY), /cannot join the access/);
  const idTokens = rotate([], newKey('i', T0, 'id_token'), T0, settings).records;
  assert.equal(states(idTokens, T0), { i: 'active' });
  const odd = [{ ...(access[0] as KeyRecord), use: 'refresh' }] as unknown as KeyRecord[];
  assert.throws(() => viewAt(odd, T0, VALIDITY), /its record is damaged \(use is neither access nor id_token\)/);
});

t.run();

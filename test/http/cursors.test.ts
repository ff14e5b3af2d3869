/** The API's page cursors (`src/cursors.ts`): made from the actors' typed positions and read back only by HTTP. */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { historyCursor, historySeqOf, searchCursor, searchKeyOf } from '../../src/cursors.ts';
import { newId } from '../../src/ids.ts';

const t = suite('page cursors');

t('a search cursor reads back as the position it was made from; anything else is undefined', () => {
  const key = { nameKey: 'jane roe', id: newId() };
  const cursor = searchCursor(key);
  assert.match(cursor, /^[A-Za-z0-9_-]+$/);
  assert.equal(searchKeyOf(cursor), key);
  for (const other of [
    '',
    'not a cursor',
    Buffer.from('{"n":"x","i":"nope"}').toString('base64url'),
    historyCursor(newId(), 3),
  ]) {
    assert.is(searchKeyOf(other), undefined, other);
  }
});

t('a history cursor reads back as its sequence number for its own user only', () => {
  const user = newId();
  const cursor = historyCursor(user, 42);
  assert.is(historySeqOf(cursor, user), 42);
  assert.is(historySeqOf(cursor, newId()), undefined, "another user's history");
  assert.is(historySeqOf(searchCursor({ nameKey: 'a', id: user }), user), undefined);
  assert.is(historySeqOf(historyCursor(user, 0), user), undefined, 'sequence numbers start at 1');
});

t.run();

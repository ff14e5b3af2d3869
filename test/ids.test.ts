/** src/ids.ts: ids in the ObjectId form, made without the MongoDB driver. */
import { execFileSync } from 'node:child_process';
import { ObjectId } from 'mongodb';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { isObjectId, newId } from '../src/ids.ts';

const t = suite('ids');

t('an id is an ObjectId the driver reads: its time is now, and ids of one process sort as made', () => {
  const before = Math.floor(Date.now() / 1000);
  const ids = Array.from({ length: 1000 }, newId);
  const after = Math.floor(Date.now() / 1000);
  for (const id of ids) {
    assert.ok(isObjectId(id), id);
    assert.ok(ObjectId.isValid(id));
    const seconds = new ObjectId(id).getTimestamp().getTime() / 1000;
    assert.ok(seconds >= before && seconds <= after, `${id} was made at ${seconds}`);
  }
  assert.is(new Set(ids).size, ids.length, 'no id twice');
  // Within one second the counter orders them; across a second boundary the time does.
  const inOneSecond = ids.filter((id) => id.slice(0, 8) === ids[0]?.slice(0, 8));
  const wrapped = inOneSecond.some((id, i) => i > 0 && id < (inOneSecond[i - 1] ?? ''));
  if (!wrapped) assert.equal([...inOneSecond].sort(), inOneSecond);
  assert.is(new Set(ids.map((id) => id.slice(8, 18))).size, 1, 'one process, one random part');
});

t("loading every actor does not load the MongoDB driver (only MongoDB's adapters do)", () => {
  const probe = `
    import { registerHooks } from 'node:module';
    const loaded = new Set();
    registerHooks({ resolve(specifier, context, next) { loaded.add(specifier); return next(specifier, context); } });
    for (const actor of ['token', 'employee', 'user', 'activity']) await import('./actors/' + actor + '/actor.ts');
    await import('./actors/activity/router.ts');
    console.log(JSON.stringify([...loaded].filter((s) => /^(mongodb|bson)(\\/|$)/.test(s))));
  `;
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', probe], { encoding: 'utf8' });
  assert.equal(JSON.parse(out), []);
});

t.run();

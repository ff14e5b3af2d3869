/**
 * The patches of src/messaging/nact-patches.ts, each pinned to the nact it was written against
 * (the installed version, and the source of every nact function it replaces or calls, so that a
 * new nact fails here before it misbehaves), and each tested for what it does.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import {
  concrete,
  spawn,
  startSystem,
  stopSystem,
  tell,
  type ActorSystem,
  type Ref,
} from '../../src/messaging/nact.ts';
import {
  appliedPatches,
  NACT_VERSION,
  applyPatches,
  nactOriginals,
  PATCHES,
  type RawMailboxActor,
} from '../../src/messaging/nact-patches.ts';
import { ok, type Reply } from '../../src/messaging/reply.ts';
import { createProbe } from '../helpers/probe.ts';

const ctx = { system: undefined as unknown as ActorSystem };
const t = suite('messaging: the nact patches, pinned to nact 7.6.2', ctx);
t.before.each(() => {
  ctx.system = startSystem(`patches-${Math.random().toString(36).slice(2)}`);
});
t.after.each(() => stopSystem(ctx.system));

const sha256 = (f: unknown): string => createHash('sha256').update(String(f)).digest('hex');

type Note = { readonly type: 'Note'; readonly sender: Ref<Reply<null>> };

/** A live actor of the system, and nact's Actor prototype behind it. */
function liveActor(): { ref: Ref<Note>; actor: RawMailboxActor; prototype: Record<string, unknown> } {
  const ref = spawn<null, Note>(
    ctx.system,
    (state, msg) => {
      tell(msg.sender, ok(null));
      return state;
    },
    { name: 'noted', initialState: () => null },
  );
  const actor = concrete(ref) as unknown as RawMailboxActor;
  return { ref, actor, prototype: Object.getPrototypeOf(actor) as Record<string, unknown> };
}

/** nact's functions the patched mailbox loop calls, as nact 7.6.2 defines them. */
const CALLED = {
  afterMessage: '080c3aa5025835ca0b52d7fd4921ac39cd233bc605e3a3f3f6ec07cc75c7e1a0',
  setTimeout: '747374535f57a90eaf82724e398fc4e227db30dc6663c0e4ef3e467246520502',
  handleFault: '06d2918d3efdd01c118ff60cf14d0c72c983d9ed9814844b2d08acf9ed80c973',
  dispatch: '870fc753ec7c4dc47a02b5deb158ea997761817991f5b2eed029e706a88a262e',
};

t('nact is exactly the version the patches were written against', () => {
  const installed = createRequire(import.meta.url).resolve('nact/package.json');
  assert.is((JSON.parse(readFileSync(installed, 'utf8')) as { version: string }).version, NACT_VERSION);
  assert.is(NACT_VERSION, '7.6.2');
  assert.equal([...appliedPatches], [...PATCHES], 'the tests run with every patch');
});

t('one context per actor › pinned: nact copies the child map into every context it builds', () => {
  assert.is(sha256(nactOriginals.createContext), 'b6b279c038c050b171159b3f91cc447f119a3726d0b8800d9da824140a0c9521');
  const childReferences = new Map([['a', { name: 'a' }]]);
  const actor = { path: 'p', reference: 'self', name: 'n', childReferences, log: 'log' };
  const made = (nactOriginals.createContext as (this: unknown, sender: unknown) => Record<string, unknown>).call(
    actor,
    'sender',
  );
  assert.equal(Object.keys(made), ['parent', 'path', 'self', 'name', 'children', 'sender', 'log']);
  assert.ok(made['children'] instanceof Map && made['children'] !== childReferences, 'a copy, made at once');
  assert.equal([...(made['children'] as Map<string, unknown>).keys()], ['a']);
});

t('one context per actor › pinned: nact builds a context for every message it handles', () => {
  const source = String(nactOriginals.handleMessage);
  assert.is(sha256(source), '8c1d668d04a3a5d4df5384b9cefe893cf461e14412b66ba276c0e282e0e4ba30');
  assert.match(source, 'let ctx = this.createContext(sender);');
});

t('one context per actor › patched: the context is built at the first message and kept', async () => {
  const { ref, actor, prototype } = liveActor();
  const build = prototype['createContext'] as (this: unknown, sender: unknown) => unknown;
  let built = 0;
  const counting = Object.assign(actor, {
    createContext(this: unknown, sender: unknown) {
      built++;
      return build.call(this, sender);
    },
  });
  const probe = createProbe<Reply<null>>(ctx.system);
  for (let i = 0; i < 5; i++) tell(ref, { type: 'Note', sender: probe.ref });
  for (let i = 0; i < 5; i++) await probe.expectMessage(1000);
  tell(ref, { type: 'Note', sender: probe.ref });
  await probe.expectMessage(1000);
  assert.is(built, 1, 'one context for six messages in two turns');
  assert.ok(counting.messageContext);
});

t('messages per turn › pinned: nact handles a message per setImmediate, and the loop calls what it did', () => {
  const handle = String(nactOriginals.handleMessage);
  const next = String(nactOriginals.processNext);
  assert.is(sha256(next), '3410996ee6b829e09a3f5e11a30a01ad681fd33a9264c4b3a20686f49fead0f1');
  assert.match(handle, 'this.immediate = setImmediate(async () => {');
  assert.match(next, 'this.handleMessage(nextMsg.message, nextMsg.sender);');
  assert.match(next, 'this.setTimeout();');
  const { actor, prototype } = liveActor();
  for (const [name, hash] of Object.entries(CALLED)) assert.is(sha256(prototype[name]), hash, name);
  // The fields the loop reads and writes, as nact's constructor sets them.
  assert.is(actor.busy, false);
  assert.is(actor.stopped, false);
  assert.is(typeof actor.f, 'function');
  assert.is(typeof actor.mailbox.shift, 'function');
  assert.ok('immediate' in actor && 'state' in actor);
});

t('messages per turn › patched: nact functions replaced (the turns themselves: nact.test.ts)', () => {
  const { prototype } = liveActor();
  assert.is(prototype['createContext'], nactOriginals.createContext, 'nact builds the one context itself');
  assert.is.not(prototype['handleMessage'], nactOriginals.handleMessage);
  assert.is.not(prototype['processNext'], nactOriginals.processNext);
});

t('applyPatches: an unknown patch or one-context alone is refused; once chosen, the choice stands', () => {
  assert.throws(
    () => applyPatches(['lazy-children']),
    /lazy-children unknown; the patches are one-context, messages-per-turn/,
  );
  assert.throws(() => applyPatches(['one-context']), /name both/);
  assert.throws(() => applyPatches([]), /applied already/, 'nact.ts applied every patch when it loaded');
  assert.equal([...applyPatches()], [...PATCHES]);
});

t('the bench chooses patches with an --import before the server loads: none runs nact as it is', () => {
  const script = `
    await import('./src/messaging/nact.ts');
    const { appliedPatches, nactOriginals } = await import('./src/messaging/nact-patches.ts');
    const { createRequire } = await import('node:module');
    const proto = createRequire(import.meta.url)('nact/lib/actor.js').Actor.prototype;
    console.log('patches=' + [...appliedPatches].join(',') + ' ' + Object.keys(nactOriginals).map((k) => k + '=' + (proto[k] === nactOriginals[k])).join(' '));`;
  const run = (...imports: string[]): string =>
    spawnSync(process.execPath, [...imports.flatMap((i) => ['--import', i]), '--input-type=module', '-e', script], {
      encoding: 'utf8',
      env: { ...process.env, TROUPE_NACT_PATCHES: '' },
      timeout: 20_000,
    }).stdout.trim();
  const bench = (patches: string) => `./test/bench/nact-patches.ts?patches=${patches}`;
  assert.is(run(bench('')), 'patches= createContext=true handleMessage=true processNext=true');
  assert.is(
    run(bench(' messages-per-turn ')),
    'patches=messages-per-turn createContext=true handleMessage=false processNext=false',
  );
  assert.is(
    run(),
    'patches=one-context,messages-per-turn createContext=true handleMessage=false processNext=false',
    'production: every patch, whatever the environment says',
  );
});

t.run();

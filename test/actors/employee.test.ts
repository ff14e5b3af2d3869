import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnEmployeeActor } from '../../actors/employee/actor.ts';
import * as Employee from '../../actors/employee/protocol.ts';
import { newId, type ObjectIdString } from '../../src/ids.ts';
import type { Request } from '../../src/messaging/ask.ts';
import { startSystem, stopSystem, tell, type ActorSystem, type Ref } from '../../src/messaging/nact.ts';
import { defaultBudget, replyThenResume } from '../../src/messaging/supervision.ts';
import { failureOf } from '../../src/composition/actors.ts';
import type { EmployeeRecord, EmployeeStore } from '../../src/stores/employee-store.ts';
import { StoreUnavailableError } from '../../src/stores/store-unavailable.ts';
import { sqliteEmployeeStore } from '../../src/stores/employee-store.sqlite.ts';
import { openDatabase, type Db } from '../../src/stores/sqlite.ts';
import { askWithProbe, createProbe } from '../helpers/probe.ts';

const NOW = Date.parse('2024-05-01T10:00:00.000Z');

interface Ctx {
  system: ActorSystem;
  db: Db;
  store: EmployeeStore;
  clock: { now: number };
  crashes: unknown[];
  /** Replaces store members for one test (undefined takes one away); cleared after each. */
  overrides: { -readonly [K in keyof EmployeeStore]?: EmployeeStore[K] | undefined };
  employee: Ref<Employee.Command>;
}
const ctx = {} as Ctx;
const t = suite('EmployeeActor', ctx);

t.before(() => {
  ctx.system = startSystem('employee-test');
  ctx.db = openDatabase(':memory:', { synchronous: 'NORMAL' });
  ctx.store = sqliteEmployeeStore(ctx.db);
  ctx.clock = { now: NOW };
  ctx.crashes = [];
  ctx.overrides = {};
  const store = new Proxy(ctx.store, {
    get: (target, key: keyof EmployeeStore) => (key in ctx.overrides ? ctx.overrides[key] : target[key]),
  });
  ctx.employee = spawnEmployeeActor(ctx.system, {
    store,
    onCrash: replyThenResume((error) => ctx.crashes.push(error), defaultBudget, failureOf),
    now: () => ctx.clock.now,
  });
});
t.after.each(() => {
  ctx.overrides = {};
});
t.after(() => {
  stopSystem(ctx.system);
  ctx.db.close();
});

const send = <R>(request: Request<Employee.Command, R>): Promise<R> => askWithProbe(ctx.system, ctx.employee, request);

function value<T>(reply: { ok: true; value: T } | { ok: false; code: string }): T {
  if (!reply.ok) throw new Error(`expected a value, got ${reply.code}`);
  return reply.value;
}

const create = async (name: string, dateOfBirth = '1990-04-12'): Promise<EmployeeRecord> =>
  value(await send(Employee.create({ name, dateOfBirth })));

t("Create: the sender gets the new record, version 1, stamped with the actor's clock", async () => {
  const r = await create('Jane Roe');
  assert.match(r.id, /^[0-9a-f]{24}$/);
  assert.equal(r, {
    id: r.id,
    name: 'Jane Roe',
    dateOfBirth: '1990-04-12',
    createdAt: '2024-05-01T10:00:00.000Z',
    updatedAt: '2024-05-01T10:00:00.000Z',
    version: 1,
  });
});

t('Get: the record; an unknown id → employee.not_found', async () => {
  const r = await create('John Doe');
  assert.equal(await send(Employee.get({ id: r.id })), { ok: true, value: r });
  const unknown = newId();
  assert.equal(await send(Employee.get({ id: unknown })), {
    ok: false,
    code: 'employee.not_found',
    message: `No employee with id ${unknown}`,
  });
});

t(
  "Search: a page carries the last item's position, passed back as `after` for the next page; null at the end",
  async () => {
    for (const n of ['Zed Alpha', 'zed beta', 'Zed Gamma']) await create(n);
    const first = value(await send(Employee.search({ name: 'ZED', limit: 2 })));
    assert.equal(
      first.items.map((r) => r.name),
      ['Zed Alpha', 'zed beta'],
    );
    assert.equal(first.next, { nameKey: 'zed beta', id: first.items[1]?.id });
    const second = value(await send(Employee.search({ name: 'zed', limit: 2, after: first.next ?? undefined })));
    assert.equal(second, { items: second.items, next: null });
    assert.equal(
      second.items.map((r) => r.name),
      ['Zed Gamma'],
    );
  },
);

t(
  'Update: version + 1 and updatedAt from the clock; a stale expected version → employee.version_conflict',
  async () => {
    const r = await create('Jane Roe');
    ctx.clock.now = NOW + 60_000;
    const updated = value(await send(Employee.update({ id: r.id, changes: { name: 'Jane Doe' }, expectedVersion: 1 })));
    assert.equal(updated, { ...r, name: 'Jane Doe', updatedAt: '2024-05-01T10:01:00.000Z', version: 2 });
    assert.equal(await send(Employee.update({ id: r.id, changes: { name: 'Lost' }, expectedVersion: 1 })), {
      ok: false,
      code: 'employee.version_conflict',
      message: `Employee ${r.id} is at version 2, not 1`,
    });
    assert.is(value(await send(Employee.update({ id: r.id, changes: { dateOfBirth: '1991-02-03' } }))).version, 3);
    const missing = await send(Employee.update({ id: newId(), changes: { name: 'X' } }));
    assert.is(missing.ok ? '' : missing.code, 'employee.not_found');
  },
);

t('Delete: the id once, then employee.not_found', async () => {
  const r = await create('Gone Soon');
  assert.equal(await send(Employee.remove({ id: r.id })), { ok: true, value: { id: r.id } });
  assert.is((await send(Employee.get({ id: r.id }))).ok, false);
  const again = await send(Employee.remove({ id: r.id }));
  assert.is(again.ok ? '' : again.code, 'employee.not_found');
});

t('a store that cannot be reached → unavailable to the sender, and the actor carries on', async () => {
  ctx.overrides.insert = () => Promise.reject(new StoreUnavailableError('down'));
  const reply = await send(Employee.create({ name: 'Jane', dateOfBirth: '1990-04-12' }));
  assert.is(reply.ok ? '' : reply.code, 'unavailable');
  delete ctx.overrides.insert;
  assert.ok((await send(Employee.create({ name: 'Jane', dateOfBirth: '1990-04-12' }))).ok);
});

t('a store fault crashes the message: the sender gets internal, the actor carries on', async () => {
  ctx.overrides.findByIdNow = undefined;
  ctx.overrides.findById = () => Promise.reject(new Error('disk on fire'));
  const reply = await send(Employee.get({ id: newId() }));
  assert.equal(reply, { ok: false, code: 'internal', message: 'internal error: disk on fire' });
  assert.is((ctx.crashes.at(-1) as Error).message, 'disk on fire');
  ctx.overrides = {};
  assert.is((await create('Still Here')).name, 'Still Here');
});

t(
  'a read the store answers at once › replied without a promise; a synchronous throw is answered as a failed call',
  async () => {
    const record = await create('At Once');
    let reads = 0;
    ctx.overrides.findById = () => Promise.reject(new Error('the read at once is taken'));
    ctx.overrides.findByIdNow = (id: ObjectIdString) => {
      reads++;
      return ctx.store.findByIdNow?.(id);
    };
    assert.equal(await send(Employee.get({ id: record.id })), { ok: true, value: record });
    assert.is(reads, 1);
    ctx.overrides.findByIdNow = () => {
      throw new Error('disk on fire');
    };
    assert.equal(await send(Employee.get({ id: record.id })), {
      ok: false,
      code: 'internal',
      message: 'internal error: disk on fire',
    });
    ctx.overrides.findByIdNow = () => {
      throw new StoreUnavailableError('down');
    };
    const reply = await send(Employee.get({ id: record.id }));
    assert.is(reply.ok ? '' : reply.code, 'unavailable');
    ctx.overrides = {};
    assert.equal(await send(Employee.get({ id: record.id })), { ok: true, value: record });
  },
);

t('messages handled in one go › a Get after an Update reads the update', async () => {
  const record = await create('Before');
  const first = createProbe<Employee.GetReply>(ctx.system);
  const updated = createProbe<Employee.UpdateReply>(ctx.system);
  const after = createProbe<Employee.GetReply>(ctx.system);
  tell(ctx.employee, Employee.get({ id: record.id })(first.ref));
  tell(ctx.employee, Employee.update({ id: record.id, changes: { name: 'After' } })(updated.ref));
  tell(ctx.employee, Employee.get({ id: record.id })(after.ref));
  assert.equal(await first.expectMessage(), { ok: true, value: record });
  assert.ok((await updated.expectMessage()).ok);
  const reply = await after.expectMessage();
  assert.is(reply.ok ? reply.value.name : reply.code, 'After');
});

t('a slow store call does not hold up the next message; each reply goes to its own sender', async () => {
  let release: (r: EmployeeRecord | undefined) => void = () => {};
  const slowId = newId();
  ctx.overrides.findByIdNow = undefined;
  ctx.overrides.findById = (id: ObjectIdString) =>
    id === slowId
      ? new Promise((resolve) => {
          release = resolve;
        })
      : ctx.store.findById(id);
  const slow = createProbe<Employee.GetReply>(ctx.system);
  tell(ctx.employee, Employee.get({ id: slowId })(slow.ref));
  const fast = await create('Fast One');
  assert.equal(await send(Employee.get({ id: fast.id })), { ok: true, value: fast });
  await slow.expectNoMessage(20);
  release(undefined);
  assert.is(((await slow.expectMessage()) as { code?: string }).code, 'employee.not_found');
});

t('a message of no known kind › its sender learns the kinds the actor takes; no crash', async () => {
  const crashes = ctx.crashes.length;
  const reply = await send((sender) => ({ sender }) as unknown as Employee.Command);
  assert.equal(reply, {
    ok: false,
    code: 'internal',
    message: 'EmployeeActor takes Create | Get | Search | Update | Delete, not a message without a type',
  });
  assert.is(ctx.crashes.length, crashes);
});

t.run();

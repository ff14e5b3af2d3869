/** The ConsentTicketStore contract, run per adapter by `storeContracts`. */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { newId } from '../../src/ids.ts';
import { SPENT_TICKET_RETENTION_S } from '../../src/stores/consent-ticket-store.ts';
import type { Stores } from '../../src/stores/stores.ts';
import type { ContractTarget, StoresUnderTest } from './contracts.ts';

export function consentTickets(name: string, target: ContractTarget): void {
  const ctx = {} as { sut: StoresUnderTest | undefined };
  const stores = (): Stores => ctx.sut?.stores ?? (assert.unreachable('no stores opened') as never);
  const t = suite(`ConsentTicketStore contract (${name})`);
  t.before.each(async () => {
    ctx.sut = await target.open();
  });
  t.after.each(async () => {
    await ctx.sut?.dispose();
    ctx.sut = undefined;
  });

  t('a ticket is spent once: the first spend is true, every later one false', async () => {
    const id = newId();
    assert.ok(await stores().tickets.spend(id, 1300));
    assert.not.ok(await stores().tickets.spend(id, 1300));
    assert.ok(await stores().tickets.spend(newId(), 1300), 'another ticket');
  });

  t('two processes spending one ticket at once: exactly one of them spends it', async () => {
    const other = await ctx.sut?.another();
    assert.ok(other);
    const id = newId();
    const spends = await Promise.all(
      Array.from({ length: 6 }, (_, i) => (i % 2 ? other : stores()).tickets.spend(id, 1300)),
    );
    assert.is(spends.filter(Boolean).length, 1);
  });

  t('purge keeps a spent ticket for the retention past its expiry, then forgets it', async () => {
    const id = newId();
    await stores().tickets.spend(id, 1300);
    assert.is(await stores().tickets.purgeExpired(1300 + SPENT_TICKET_RETENTION_S), 0);
    assert.not.ok(await stores().tickets.spend(id, 1300), 'still spent');
    assert.is(await stores().tickets.purgeExpired(1301 + SPENT_TICKET_RETENTION_S), 1);
  });

  t.run();
}

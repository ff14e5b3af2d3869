import { SPENT_TICKET_RETENTION_S, type ConsentTicketStore } from './consent-ticket-store.ts';
import type { Db } from './sqlite.ts';

/**
 * SQLite adapter of {@link ConsentTicketStore}: table `consent_tickets`, keyed by the ticket's id. A
 * spend is one insert that does nothing when the id is there: one statement, so with several
 * processes on the file exactly one of them inserts it.
 */
export function sqliteConsentTicketStore(db: Db): ConsentTicketStore {
  const insert = db.prepare<[string, number]>(
    'insert into consent_tickets (ticket_id, expires_at) values (?, ?) on conflict (ticket_id) do nothing',
  );
  const purge = db.prepare<[number]>('delete from consent_tickets where expires_at < ?');
  return {
    spend: async (ticketId, expiresAt) => insert.run(ticketId, expiresAt).changes === 1,
    purgeExpired: async (now) => purge.run(now - SPENT_TICKET_RETENTION_S).changes,
  };
}

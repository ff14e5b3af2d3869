import type { Db as MongoDb } from 'mongodb';
import { SPENT_TICKET_RETENTION_S, type ConsentTicketStore } from './consent-ticket-store.ts';
import { guarded, isDuplicateKey, type CollectionIndexes, type Runner } from './mongo.ts';

interface TicketDoc {
  /** The ticket's id. */
  _id: string;
  expiresAt: number;
}

export const CONSENT_TICKET_INDEXES: CollectionIndexes = {
  consent_tickets: [{ key: { expiresAt: 1 }, name: 'consent_tickets_expiry' }],
};

/**
 * MongoDB adapter of {@link ConsentTicketStore}: collection `consent_tickets`, keyed by the ticket's
 * id. A spend is one insert, which the unique `_id` lets succeed once: posted to two instances at
 * once, one of them spends the ticket and the other's insert is refused as a duplicate.
 */
export function mongoConsentTicketStore(db: MongoDb, run: Runner = guarded): ConsentTicketStore {
  const tickets = db.collection<TicketDoc>('consent_tickets');
  return {
    spend: (ticketId, expiresAt) =>
      run(async () => {
        try {
          await tickets.insertOne({ _id: ticketId, expiresAt });
          return true;
        } catch (error) {
          if (isDuplicateKey(error)) return false;
          throw error;
        }
      }),
    purgeExpired: (now) =>
      run(async () => (await tickets.deleteMany({ expiresAt: { $lt: now - SPENT_TICKET_RETENTION_S } })).deletedCount),
  };
}

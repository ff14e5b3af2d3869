/**
 * Port: the consent tickets already decided with. A consent page's ticket (http/oauth/consent-ticket.ts)
 * is good for one decision, Allow or Deny: the first spends it. Of any number of decisions with one
 * ticket, in one process or several, exactly one finds it unspent. Times are epoch seconds.
 */

/**
 * Seconds a spent ticket stays recorded past its expiry. Each process judges a ticket's expiry by
 * its own clock, and the purge runs by another's: a process whose clock is behind still accepts
 * the ticket for a moment after another has passed its expiry, so the record outlives it by well
 * more than any skew the service tolerates (30 s for tokens).
 */
export const SPENT_TICKET_RETENTION_S = 300;

export interface ConsentTicketStore {
  /**
   * Records the ticket `ticketId` spent, atomically: true when this call spent it, false when it
   * was spent already. `expiresAt`: when the ticket is refused anyway (what the purge goes by).
   */
  spend(ticketId: string, expiresAt: number): Promise<boolean>;
  /** Forgets tickets expired more than {@link SPENT_TICKET_RETENTION_S} before `now`; returns how many. */
  purgeExpired(now: number): Promise<number>;
}

/**
 * TokenActor's sign-in sessions apart from an authorization (`grants/authorization-code.ts` begins
 * and uses them): signing out one browser, and an account's sessions listed or all ended (the REPL,
 * the account's own page). Each reads and writes the store, so an end is seen by every process.
 */
import { ok } from '../../src/messaging/reply.ts';
import type { Sessions } from '../../src/security/sign-in-sessions.ts';
import type { Command, EndSessionReply, EndSessionsReply, SessionsReply } from './protocol.ts';

type Of<T extends Command['type']> = Extract<Command, { type: T }>;

export function createSessionHandlers(sessions: Sessions) {
  return {
    onEndSession: async (msg: Of<'EndSession'>): Promise<EndSessionReply> => {
      const ended = await sessions.end(msg.session);
      return ok(ended ? { accountId: ended.accountId } : null);
    },
    onListSessions: async (msg: Of<'ListSessions'>): Promise<SessionsReply> =>
      ok(
        (await sessions.list(msg.accountId)).map(({ authTime, createdAt, expiresAt }) => ({
          authTime,
          createdAt,
          expiresAt,
        })),
      ),
    onEndSessions: async (msg: Of<'EndSessions'>): Promise<EndSessionsReply> =>
      ok({ ended: await sessions.endForAccount(msg.accountId) }),
  };
}

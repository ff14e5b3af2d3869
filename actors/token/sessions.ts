/**
 * TokenActor's sign-in sessions apart from an authorization (`grants/authorization-code.ts` begins
 * and uses them): the account page's sign-in (a password login for no client) and the account a
 * cookie signs in, signing out one browser (the account page's, RP-initiated logout's), and an
 * account's sessions listed or all ended (the REPL,
 * the account's own page). Each reads and writes the store, so an end is seen by every process.
 */
import { ok } from '../../src/messaging/reply.ts';
import type { Sessions } from '../../src/security/sign-in-sessions.ts';
import { accountSubject } from '../../src/security/subjects.ts';
import type { AccountLoginOf } from './grants/password-login.ts';
import type {
  Command,
  GetSessionReply,
  EndSessionReply,
  EndSessionsReply,
  SessionsReply,
  SignInReply,
  SignOutReply,
} from './protocol.ts';

type Of<T extends Command['type']> = Extract<Command, { type: T }>;

export function createSessionHandlers(sessions: Sessions, accountLogin: AccountLoginOf, seconds: () => number) {
  return {
    onSignIn: (msg: Of<'SignIn'>): Promise<SignInReply> =>
      accountLogin(msg, async (account) => {
        const session = await sessions.start(account, seconds());
        if (msg.replacing !== undefined) await sessions.end(msg.replacing);
        return ok({ session, username: account.username });
      }),
    onGetSession: async (msg: Of<'GetSession'>): Promise<GetSessionReply> => {
      const signedIn = await sessions.current(msg.session);
      return ok(signedIn ? { accountId: signedIn.account.id, username: signedIn.account.username } : null);
    },
    onEndSession: async (msg: Of<'EndSession'>): Promise<EndSessionReply> => {
      const ended = await sessions.end(msg.session);
      return ok(ended ? { accountId: ended.accountId } : null);
    },
    onSignOut: async (msg: Of<'SignOut'>): Promise<SignOutReply> => {
      const signedIn = await sessions.current(msg.session);
      if (signedIn === undefined) return ok({ ended: null });
      const { id, username } = signedIn.account;
      if (msg.subject !== undefined && msg.subject !== accountSubject(id)) return ok({ otherAccount: true });
      // Ended once: of two sign-outs at once, in any processes, one ends it and the other finds it ended.
      return ok({ ended: (await sessions.end(msg.session)) ? { accountId: id, username } : null });
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

/** The account changes that must end what an account's tokens may do, made by an ADMIN through AccountActor. */
import * as Accounts from '../../actors/accounts/protocol.ts';
import type { Request } from '../../src/messaging/ask.ts';
import type { Reply } from '../../src/messaging/reply.ts';
import type { TokenActorSetup } from './token-actor.ts';

/** Asks the AccountActor of `setup` (a suite's own, over its actor system). */
export type Administer = <R>(setup: TokenActorSetup, request: Request<Accounts.Command, R>) => Promise<R>;

/** Each change, made by `admin` at `where` to account `id`. */
export function accountChanges(administer: Administer) {
  return {
    demotion: (where: TokenActorSetup, id: number) =>
      administer(where, Accounts.updateAccount({ actor: 'admin', id, roles: ['USER'] })),
    'password reset': (where: TokenActorSetup, id: number) =>
      administer(where, Accounts.setPassword({ actor: 'admin', id, password: 'elm-password-2' })),
    disable: (where: TokenActorSetup, id: number) =>
      administer(where, Accounts.updateAccount({ actor: 'admin', id, enabled: false })),
    delete: (where: TokenActorSetup, id: number) => administer(where, Accounts.deleteAccount({ actor: 'admin', id })),
    'every login ended': (where: TokenActorSetup, id: number) =>
      administer(where, Accounts.endLogins({ actor: 'admin', id })),
  } satisfies Record<string, (where: TokenActorSetup, id: number) => Promise<Reply<unknown, string>>>;
}

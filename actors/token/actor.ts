import { spawn, tell, type Ctx, type Ref } from '../../src/messaging/nact.ts';
import { pipe } from '../../src/messaging/pipe.ts';
import { fail, ok } from '../../src/messaging/reply.ts';
import { refuseUnknown } from '../../src/messaging/supervision.ts';
import type { Client } from '../../src/security/clients.ts';
import { isTooLong } from '../../src/security/passwords.ts';
import type { UserRecord } from '../../src/stores/credential-store.ts';
import { createHandlers, type TokenActorDeps } from './handlers.ts';
import { examples, type ClientReply, type Command, type GrantReply, type UsersReply, type UserView } from './protocol.ts';

export type { TokenActorDeps } from './handlers.ts';

type IssueToken = Extract<Command, { type: 'IssueToken' }>;
type AuthenticateClient = Extract<Command, { type: 'AuthenticateClient' }>;

/**
 * Completions of work done off the actor (BCrypt on the worker pool), and housekeeping. A completion
 * carries its caller's `sender` at the top, where supervision looks for it: a crash while handling
 * it answers the caller at once instead of leaving it to time out.
 */
type Internal =
  | { readonly type: 'ClientChecked'; readonly request: AuthenticateClient; readonly client: Client | undefined; readonly sender: Ref<ClientReply> }
  | { readonly type: 'PasswordChecked'; readonly request: IssueToken; readonly client: Client; readonly user: UserRecord | undefined; readonly sender: Ref<GrantReply> }
  | { readonly type: 'WorkFailed'; readonly error: unknown; readonly sender: Ref<GrantReply> | Ref<ClientReply> | Ref<UsersReply> }
  | { readonly type: 'Purge' };

type Msg = Command | Internal;

/** Every user with its roles, as of the store's change count `count`. */
interface Listing { readonly count: number; readonly withHashes: readonly UserView[]; readonly withoutHashes: readonly UserView[] }

const BAD_CREDENTIALS = 'Bad credentials';
const PURGE_EVERY_MS = 3_600_000;

export function spawnTokenActor(parent: Ref<never>, deps: TokenActorDeps): Ref<Command> {
  const h = createHandlers(deps);

  const onAuthenticateClient = (msg: AuthenticateClient, ctx: Ctx<Msg>): void => {
    pipe(deps.authenticateClient({ clientId: msg.clientId, clientSecret: msg.clientSecret }), ctx.self,
      (client): Msg => ({ type: 'ClientChecked', request: msg, client, sender: msg.sender }),
      (error): Msg => ({ type: 'WorkFailed', error, sender: msg.sender }));
  };

  const onClientChecked = ({ request, client }: Extract<Internal, { type: 'ClientChecked' }>): void => {
    tell(request.sender, client
      ? ok({ clientId: client.clientId, grantTypes: client.grantTypes, scopes: client.scopes })
      : fail('client.invalid', 'Bad client credentials'));
  };

  /** BCrypt runs on the worker pool; its verdict comes back as PasswordChecked. */
  const onIssueToken = async (msg: IssueToken, ctx: Ctx<Msg>): Promise<void> => {
    const client = h.checkGrant(msg.clientId, 'password', msg.scope);
    if ('ok' in client) return tell(msg.sender, client);
    if (isTooLong(msg.password)) return tell(msg.sender, fail('grant.invalid', BAD_CREDENTIALS));
    const user = await deps.credentials.findByUsername(msg.username);
    pipe(deps.passwords.verify(msg.password, user?.password ?? deps.dummyHash), ctx.self,
      (matches): Msg => ({ type: 'PasswordChecked', request: msg, client, user: matches ? user : undefined, sender: msg.sender }),
      (error): Msg => ({ type: 'WorkFailed', error, sender: msg.sender }));
  };

  const onPasswordChecked = async ({ request, client, user }: Extract<Internal, { type: 'PasswordChecked' }>): Promise<void> => {
    if (!user) return tell(request.sender, fail('grant.invalid', BAD_CREDENTIALS));
    await h.issue(request, client, user);
  };

  /**
   * The listing as of a change count of the store: kept between requests, and used while the
   * store's count (moved by every change to users or roles, in any process) has not moved. The
   * count is read before the listing, so a listing is never newer than the count it is kept under.
   */
  let listing: Listing | undefined;
  const currentListing = async (): Promise<Listing> => {
    const count = await deps.credentials.changeCount();
    if (listing?.count === count) return listing;
    const users = await deps.credentials.listAll();
    const fresh: Listing = { count, withHashes: Object.freeze(users), withoutHashes: Object.freeze(users.map(({ password: _, ...user }) => user)) };
    if (!listing || listing.count !== count) listing = fresh;
    return fresh;
  };

  /** Read-only, so not awaited: the listing goes straight to the sender, a failure back here. */
  const onListUsers = (msg: Extract<Command, { type: 'ListUsers' }>, ctx: Ctx<Msg>): void => {
    currentListing().then(
      (l) => tell(msg.sender, ok(msg.includePasswordHash ? l.withHashes : l.withoutHashes)),
      (error: unknown) => tell(ctx.self, { type: 'WorkFailed', error, sender: msg.sender }));
  };

  const handle = async (msg: Msg, ctx: Ctx<Msg>): Promise<void> => {
    switch (msg.type) {
      case 'AuthenticateClient': return onAuthenticateClient(msg, ctx);
      case 'ClientChecked': return onClientChecked(msg);
      case 'IssueToken': return onIssueToken(msg, ctx);
      case 'PasswordChecked': return onPasswordChecked(msg);
      case 'Refresh': return h.refresh(msg);
      case 'Revoke': return h.revoke(msg);
      case 'Introspect': return h.introspect(msg);
      case 'ListUsers': return onListUsers(msg, ctx);
      case 'WorkFailed': throw msg.error;
      case 'Purge': return h.purge();
      default: return refuseUnknown(msg, 'TokenActor', Object.keys(examples));
    }
  };

  const ref = spawn<NodeJS.Timeout | undefined, Msg>(parent, async (timer, msg, ctx) => {
    await handle(msg, ctx);
    return timer;
  }, {
    name: 'token',
    initialState: (ctx) => setInterval(() => tell(ctx.self, { type: 'Purge' }), PURGE_EVERY_MS).unref(),
    afterStop: (timer) => clearInterval(timer),
    onCrash: deps.onCrash,
  });
  tell(ref, { type: 'Purge' });
  return ref;
}

import { randomUUID } from 'node:crypto';
import { spawn, tell, type CrashPolicy, type Ctx, type Ref } from '../../src/messaging/nact.ts';
import { pipe } from '../../src/messaging/pipe.ts';
import { assertNever, fail, ok } from '../../src/messaging/reply.ts';
import type { Client, ClientAuthenticator } from '../../src/security/clients.ts';
import type { TokenSigner } from '../../src/security/jwt.ts';
import { isTooLong, type PasswordHasher } from '../../src/security/passwords.ts';
import { hashToken, newRefreshToken } from '../../src/security/refresh-tokens.ts';
import type { CredentialStore, UserRecord } from '../../src/stores/credential-store.ts';
import type { RefreshTokenRecord, RefreshTokenStore } from '../../src/stores/refresh-token-store.ts';
import type { ClientReply, Command, GrantReply, TokenGrant } from './protocol.ts';

export interface TokenActorDeps {
  readonly clients: readonly Client[];
  readonly authenticateClient: ClientAuthenticator;
  readonly credentials: CredentialStore;
  readonly refreshTokens: RefreshTokenStore;
  readonly passwords: PasswordHasher;
  readonly signAccessToken: TokenSigner;
  /** Seconds a login's refresh tokens live, counted from the login. */
  readonly refreshTokenValidity: number;
  /** Compared against when the user is unknown, so both failures take the same time. */
  readonly dummyHash: string;
  readonly onCrash: CrashPolicy;
  readonly now?: () => number;
}

type IssueToken = Extract<Command, { type: 'IssueToken' }>;
type Refresh = Extract<Command, { type: 'Refresh' }>;
type AuthenticateClient = Extract<Command, { type: 'AuthenticateClient' }>;

/** Completions of work done off the actor (BCrypt on the worker pool), and housekeeping. */
type Internal =
  | { readonly type: 'ClientChecked'; readonly request: AuthenticateClient; readonly client: Client | undefined }
  | { readonly type: 'PasswordChecked'; readonly request: IssueToken; readonly client: Client; readonly user: UserRecord | undefined }
  | { readonly type: 'WorkFailed'; readonly error: unknown; readonly sender: Ref<GrantReply> | Ref<ClientReply> }
  | { readonly type: 'Purge' };

type Msg = Command | Internal;

const BAD_CREDENTIALS = 'Bad credentials';
const PURGE_EVERY_MS = 3_600_000;

export function spawnTokenActor(parent: Ref<never>, deps: TokenActorDeps): Ref<Command> {
  const now = deps.now ?? Date.now;
  const seconds = (): number => Math.floor(now() / 1000);
  const clientOf = (clientId: string): Client | undefined => deps.clients.find((c) => c.clientId === clientId);

  const onAuthenticateClient = (msg: AuthenticateClient, ctx: Ctx<Msg>): void => {
    pipe(deps.authenticateClient({ clientId: msg.clientId, clientSecret: msg.clientSecret }), ctx.self,
      (client): Msg => ({ type: 'ClientChecked', request: msg, client }),
      (error): Msg => ({ type: 'WorkFailed', error, sender: msg.sender }));
  };

  const onClientChecked = ({ request, client }: Extract<Internal, { type: 'ClientChecked' }>): void => {
    tell(request.sender, client
      ? ok({ clientId: client.clientId, grantTypes: client.grantTypes, scopes: client.scopes })
      : fail('client.invalid', 'Bad client credentials'));
  };

  /** The client's checks that come before any credential is looked at. */
  const checkGrant = (clientId: string, grant: 'password' | 'refresh_token', scope: readonly string[] | undefined) => {
    const client = clientOf(clientId);
    if (!client) return fail('client.invalid', 'Unknown client');
    if (!client.grantTypes.includes(grant)) return fail('grant.unauthorized', `The client may not use the ${grant} grant`);
    const bad = (scope ?? []).filter((s) => !client.scopes.includes(s));
    if (bad.length > 0) return fail('scope.invalid', `Invalid scope: ${bad.join(' ')}`);
    return client;
  };

  const onIssueToken = (msg: IssueToken, ctx: Ctx<Msg>): void => {
    const client = checkGrant(msg.clientId, 'password', msg.scope);
    if ('ok' in client) return tell(msg.sender, client);
    if (isTooLong(msg.password)) return tell(msg.sender, fail('grant.invalid', BAD_CREDENTIALS));
    const user = deps.credentials.findByUsername(msg.username);
    pipe(deps.passwords.verify(msg.password, user?.password ?? deps.dummyHash), ctx.self,
      (matches): Msg => ({ type: 'PasswordChecked', request: msg, client, user: matches ? user : undefined }),
      (error): Msg => ({ type: 'WorkFailed', error, sender: msg.sender }));
  };

  const grant = async (client: Client, user: UserRecord, scope: readonly string[]): Promise<TokenGrant> => {
    const issued = await deps.signAccessToken({
      username: user.username, clientId: client.clientId, scope, authorities: user.roles.map((r) => r.roleName),
    }, now());
    return {
      accessToken: issued.token, tokenType: 'bearer', refreshToken: undefined, expiresIn: Math.floor((issued.exp * 1000 - now()) / 1000),
      scope, jti: issued.jti,
    };
  };

  const newRefresh = (client: Client, user: UserRecord, scope: readonly string[], familyId: string, expiresAt: number) => {
    if (!client.grantTypes.includes('refresh_token')) return undefined;
    const token = newRefreshToken();
    const record: RefreshTokenRecord = {
      tokenHash: hashToken(token), familyId, clientId: client.clientId, username: user.username, scope,
      issuedAt: seconds(), expiresAt, usedAt: null, revokedAt: null,
    };
    return { token, record };
  };

  const onPasswordChecked = async ({ request, client, user }: Extract<Internal, { type: 'PasswordChecked' }>): Promise<void> => {
    if (!user) return tell(request.sender, fail('grant.invalid', BAD_CREDENTIALS));
    const scope = request.scope ?? client.scopes;
    const refresh = newRefresh(client, user, scope, randomUUID(), seconds() + deps.refreshTokenValidity);
    const granted = await grant(client, user, scope);
    if (refresh) deps.refreshTokens.insert(refresh.record);
    tell(request.sender, ok({ ...granted, refreshToken: refresh?.token }));
  };

  const refused = (msg: Refresh, description: string): void => tell(msg.sender, fail('grant.invalid', description));

  const onRefresh = async (msg: Refresh): Promise<void> => {
    const client = checkGrant(msg.clientId, 'refresh_token', msg.scope);
    if ('ok' in client) return tell(msg.sender, client);
    const record = deps.refreshTokens.find(hashToken(msg.refreshToken));
    if (!record || record.clientId !== msg.clientId) return refused(msg, 'Invalid refresh token');
    if (record.revokedAt !== null) return refused(msg, 'Refresh token revoked');
    if (record.usedAt !== null) {
      deps.refreshTokens.revokeFamily(record.familyId, seconds());
      return refused(msg, 'Refresh token already used; every token of this login is revoked');
    }
    if (record.expiresAt <= seconds()) return refused(msg, 'Refresh token expired');
    const wider = (msg.scope ?? []).filter((s) => !record.scope.includes(s));
    if (wider.length > 0) return tell(msg.sender, fail('scope.invalid', `Scope wider than the original grant: ${wider.join(' ')}`));
    const user = deps.credentials.findByUsername(record.username);
    if (!user) return refused(msg, 'The user no longer exists');
    const next = newRefresh(client, user, record.scope, record.familyId, record.expiresAt);
    if (!next || !deps.refreshTokens.rotate(record.tokenHash, next.record, seconds())) return refused(msg, 'Invalid refresh token');
    const granted = await grant(client, user, msg.scope ?? record.scope);
    tell(msg.sender, ok({ ...granted, refreshToken: next.token }));
  };

  const handle = async (msg: Msg, ctx: Ctx<Msg>): Promise<void> => {
    switch (msg.type) {
      case 'AuthenticateClient': return onAuthenticateClient(msg, ctx);
      case 'ClientChecked': return onClientChecked(msg);
      case 'IssueToken': return onIssueToken(msg, ctx);
      case 'PasswordChecked': return onPasswordChecked(msg);
      case 'Refresh': return onRefresh(msg);
      case 'ListUsers': return tell(msg.sender, ok(deps.credentials.listAll()));
      case 'WorkFailed': throw msg.error;
      case 'Purge': { deps.refreshTokens.purgeExpired(seconds()); return; }
      default: return assertNever(msg);
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

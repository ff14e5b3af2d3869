/** The client_credentials grant: a token of the (already authenticated) client itself. */
import { ok } from '../../../src/messaging/reply.ts';
import type { TokenSigner } from '../../../src/security/jwt.ts';
import type { GrantOf, GrantReply } from '../protocol.ts';
import type { GrantRequest } from './grant-request.ts';
import type { Issuing } from './issuing.ts';

export interface ClientCredentialsDeps {
  readonly signAccessToken: TokenSigner;
  readonly now?: () => number;
}

export function createClientCredentials(deps: ClientCredentialsDeps, issuing: Issuing) {
  const now = deps.now ?? Date.now;

  /**
   * The client's own token: no roles, no login, no refresh token. Run beside the mailbox as every
   * grant is, so that the signatures of clients asking at once run together. (jose signs through
   * WebCrypto, whose every call is a job on libuv's thread pool: one at a time, each wakes a thread
   * and then the event loop, and cost 3–4 times the CPU of signatures made together; see
   * docs/benchmarks.md.)
   */
  const clientCredentialsGrant = async (
    grant: GrantOf<'client_credentials'>,
    request: GrantRequest,
  ): Promise<GrantReply> => {
    const client = issuing.checkGrant(request.clientId, 'client_credentials', grant.scope);
    if ('ok' in client) return client;
    const scope = grant.scope ?? client.scopes;
    const issued = await deps.signAccessToken(
      {
        username: client.clientId,
        clientId: client.clientId,
        scope,
        authorities: [],
        loginId: undefined,
        account: undefined,
        clientToken: true,
      },
      now(),
    );
    return ok(issuing.granted(issued, scope, undefined));
  };

  return { clientCredentialsGrant };
}

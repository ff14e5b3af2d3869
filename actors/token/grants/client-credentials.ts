/** The client_credentials grant: a token of the (already authenticated) client itself. */
import { tell, type Ref } from '../../../src/messaging/nact.ts';
import { replyBeside, type WorkFailed } from '../../../src/messaging/pipe.ts';
import { ok } from '../../../src/messaging/reply.ts';
import type { TokenSigner } from '../../../src/security/jwt.ts';
import type { Command } from '../protocol.ts';
import type { Issuing } from './issuing.ts';

export interface ClientCredentialsDeps {
  readonly signAccessToken: TokenSigner;
  readonly now?: () => number;
}

type ClientCredentials = Extract<Command, { type: 'ClientCredentials' }>;

export function createClientCredentials(deps: ClientCredentialsDeps, issuing: Issuing) {
  const now = deps.now ?? Date.now;

  /**
   * The client's own token: no roles, no login, no refresh token. The client's grant and scope are
   * checked in the mailbox; the signature is made beside it (`replyBeside`), as it touches no
   * state of the actor: the actor takes its next message meanwhile, so the signatures of clients
   * asking at once run together. (jose signs through WebCrypto, whose every call is a job on
   * libuv's thread pool: one at a time, each wakes a thread and then the event loop, and cost 3–4
   * times the CPU of signatures made together; see docs/benchmarks.md.)
   */
  const onClientCredentials = (msg: ClientCredentials, self: Ref<WorkFailed>): void => {
    const client = issuing.checkGrant(msg.clientId, 'client_credentials', msg.scope);
    if ('ok' in client) return tell(msg.sender, client);
    const scope = msg.scope ?? client.scopes;
    const request = {
      username: client.clientId,
      clientId: client.clientId,
      scope,
      authorities: [],
      loginId: undefined,
      account: undefined,
      clientToken: true,
    };
    replyBeside(
      self,
      msg.sender,
      deps.signAccessToken(request, now()).then((issued) => ok(issuing.granted(issued, scope, undefined))),
    );
  };

  return { onClientCredentials };
}

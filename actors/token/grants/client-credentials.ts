/** The client_credentials grant: a token of the (already authenticated) client itself. */
import { tell } from '../../../src/messaging/nact.ts';
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

  /** The client's own token: no roles, no login, no refresh token. */
  const onClientCredentials = async (msg: ClientCredentials): Promise<void> => {
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
    };
    const issued = await deps.signAccessToken({ ...request, clientToken: true }, now());
    tell(msg.sender, ok(issuing.granted(issued, scope, undefined)));
  };

  return { onClientCredentials };
}

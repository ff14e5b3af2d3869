/** The security events of the token endpoint, read from each grant's outcome. */
import { REPLAYED as REPLAYED_CODE } from '../../actors/token/grants/authorization-code.ts';
import * as Token from '../../actors/token/protocol.ts';
import type { Logger } from '../../src/logger.ts';
import { securityEvent, type RequestOf } from '../security-events.ts';

/**
 * `login.succeeded` / `login.failed` / `login.throttled` for a password grant (failed: bad
 * credentials only, not a refused scope), `token.refreshed` / `token.reuse_detected` for a refresh grant,
 * `code.reuse_detected` for an authorization code presented again (its login was revoked),
 * `client.token_issued` with the scope granted for every client_credentials grant.
 */
export function reportGrant(
  logger: Logger,
  ctx: RequestOf,
  grant: Token.Grant,
  clientId: string,
  reply: Token.GrantReply,
): void {
  if (grant.grantType === 'password') {
    const subject = { username: grant.username, clientId };
    if (reply.ok) securityEvent(logger, ctx, 'login.succeeded', subject);
    else if (reply.code === 'grant.invalid') securityEvent(logger, ctx, 'login.failed', subject);
    // Counted by TokenActor before a BCrypt compare, and refused.
    else if (reply.code === 'login.throttled')
      securityEvent(logger, ctx, 'login.throttled', { username: subject.username });
  } else if (grant.grantType === 'refresh_token') {
    if (reply.ok) securityEvent(logger, ctx, 'token.refreshed', { clientId });
    else if (reply.code === 'grant.invalid' && reply.message === Token.REUSED_REFRESH_TOKEN)
      securityEvent(logger, ctx, 'token.reuse_detected', { clientId });
  } else if (grant.grantType === 'client_credentials') {
    if (reply.ok)
      securityEvent(logger, ctx, 'client.token_issued', { clientId }, { scope: reply.value.scope.join(' ') });
  } else if (grant.grantType === 'authorization_code') {
    if (!reply.ok && reply.code === 'grant.invalid' && reply.message === REPLAYED_CODE)
      securityEvent(logger, ctx, 'code.reuse_detected', { clientId });
  }
}

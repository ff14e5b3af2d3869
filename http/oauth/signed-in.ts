/**
 * The authorization endpoint through the browser's sign-in session (OpenID Connect Core
 * §3.1.2.1): a second application, or the same one again, gets its code without the password
 * (consent asked as after a password), unless `prompt=login` or `max_age` ask for the password, or
 * `id_token_hint` names another account. `prompt=none` shows no page at all: what would need one
 * goes back to the application as `login_required` or `consent_required`.
 */
import type { Context } from 'koa';
import * as Token from '../../actors/token/protocol.ts';
import { ask } from '../../src/messaging/ask.ts';
import { hintedSubject } from '../../src/security/id-token.ts';
import { replyValue } from '../problems.ts';
import { AuthorizeError, codeTerms, type AuthorizationRequest } from './authorization-request.ts';
import type { Deps } from './authorize-answers.ts';
import { showConsent } from './pages/authorize-pages.ts';
import { redirectBack, redirectError } from './redirects.ts';
import { sessionCookie } from './session-cookie.ts';

/** An error the client may read, sent back to its redirect URI. */
const back = (request: AuthorizationRequest, error: string, description: string): AuthorizeError =>
  new AuthorizeError(error, description, { redirectUri: request.redirectUri, state: request.state });

/**
 * Answers the request through the session when it can (a code, or the consent page), and says
 * whether it did; throws the redirect back with `login_required` or `consent_required` for
 * `prompt=none` where a page would be needed. False: the sign-in form is the answer.
 */
export async function authorizedBySession(ctx: Context, deps: Deps, request: AuthorizationRequest): Promise<boolean> {
  const silent = request.prompt.has('none');
  const subject =
    request.idTokenHint === undefined
      ? undefined
      : await hintedSubject(request.idTokenHint, deps.idTokenKeys, deps.issuer);
  if (request.idTokenHint !== undefined && subject === undefined)
    throw back(request, 'invalid_request', 'id_token_hint is not an id_token of this server');
  const session = request.prompt.has('login') ? undefined : sessionCookie(ctx);
  if (session !== undefined) {
    const reply = await ask(
      deps.token,
      Token.authorizeSignedIn({ ...codeTerms(request), session, maxAge: request.maxAge, subject }),
      deps.askTimeoutMs,
    );
    if (!reply.ok) {
      const error = redirectError(reply.code);
      if (error !== undefined) throw back(request, error, reply.message);
      replyValue(reply);
    } else if ('code' in reply.value) {
      redirectBack(ctx, request, { code: reply.value.code }, deps.issuer);
      return true;
    } else if ('consent' in reply.value) {
      if (silent)
        throw back(request, 'consent_required', 'The application asks for access the account has not allowed it');
      await showConsent(ctx, deps, request, reply.value.consent);
      return true;
    }
  }
  if (silent) throw back(request, 'login_required', 'No sign-in session can be used for this request');
  return false;
}

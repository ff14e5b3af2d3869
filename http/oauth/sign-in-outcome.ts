/**
 * What a sign-in's reply from TokenActor leads to, the same at the authorization endpoint and on
 * the account page: the security events (`login.succeeded` and `session.started`, `login.failed`,
 * `login.throttled`), the session's cookie, and the sign-in form shown again for a refusal a person
 * can act on.
 */
import type { Context } from 'koa';
import type * as Token from '../../actors/token/protocol.ts';
import type { Logger } from '../../src/logger.ts';
import { securityEvent } from '../security-events.ts';
import type { SignInProblem } from './page-views.ts';
import { setSessionCookie } from './session-cookie.ts';

/** Who tried: the username typed, and the client the sign-in is for (none on the account page). */
export interface SignInSubject {
  readonly username: string;
  readonly clientId?: string;
}

/** The sign-in form again, with its status and what to say. */
export interface FormAgain {
  readonly status: 400 | 429;
  readonly problem: SignInProblem;
}

/** A wrong username or password, or a disabled account: one answer for all. */
export const BAD_CREDENTIALS: SignInProblem = { kind: 'credentials' };

/** A password that matched: its events, and the browser's session cookie set. */
export function signInSucceeded(
  ctx: Context,
  logger: Logger,
  subject: SignInSubject,
  session: Token.StartedSession,
): void {
  securityEvent(logger, ctx, 'login.succeeded', subject);
  setSessionCookie(ctx, session.value, session.expiresAt);
  securityEvent(logger, ctx, 'session.started', subject);
}

/**
 * A refused sign-in: its event, and the form to show again (throttled: 429 with `Retry-After`;
 * bad credentials or input: 400); undefined for any other refusal, which the caller answers.
 */
export function refusedSignIn(
  ctx: Context,
  logger: Logger,
  subject: SignInSubject,
  refusal: Extract<Token.SignInReply | Token.AuthorizeReply, { readonly ok: false }>,
): FormAgain | undefined {
  if ('retryAfter' in refusal) {
    securityEvent(logger, ctx, 'login.throttled', subject);
    ctx.set('Retry-After', String(refusal.retryAfter));
    return { status: 429, problem: { kind: 'throttled', retryAfter: refusal.retryAfter, inFlight: refusal.inFlight } };
  }
  if (refusal.code === 'grant.invalid') {
    securityEvent(logger, ctx, 'login.failed', subject);
    return { status: 400, problem: BAD_CREDENTIALS };
  }
  if (refusal.code === 'request.invalid')
    return { status: 400, problem: { kind: 'invalid', message: refusal.message } };
  return undefined;
}

/**
 * The consent step of the authorization endpoint: after a sign-in whose account has not allowed
 * the client every scope asked (and the client is not first-party), the consent page; its form
 * posts here. Allow records the consent and sends the code back, Deny sends `access_denied` back
 * (RFC 6749 §4.1.2.1). The form carries the sign-in form's defences: a CSRF token bound to the
 * browser and request, the same headers (no framing, no caching), and a consent ticket
 * (consent-ticket.ts) that stands for the password checked a moment before. The first decision
 * spends the ticket (TokenActor, in the store); the form posted again, Allow or Deny, in any
 * process, is refused as expired.
 */
import type { Context, Middleware } from 'koa';
import * as Token from '../../actors/token/protocol.ts';
import { ask } from '../../src/messaging/ask.ts';
import {
  AuthorizeError,
  codeTerms,
  readAuthorizationRequest,
  type AuthorizationRequest,
} from './authorization-request.ts';
import { answering, expired, page, pageForm, redirect, type Deps } from './authorize-answers.ts';
import { showForm } from './pages/authorize-pages.ts';
import { redirectBack, redirectError } from './redirects.ts';
import type { AppState } from '../state.ts';
import type { ReadTicket } from './consent-ticket.ts';
import { replyValue } from '../problems.ts';
import * as S from '../openapi/shapes.ts';
import { oauthErrors, route, type Declared, type Route } from '../route-table.ts';
import { PUBLIC } from '../guards.ts';
import { securityEvent } from '../security-events.ts';
import { formParams } from '../middleware/body.ts';

/** Said to the client with `access_denied`. */
const DENIED = 'The user denied the request';

/** The person's answer: `allow` or `deny`, sent once. */
function decisionOf(params: URLSearchParams): 'allow' | 'deny' {
  const [decision, ...more] = params.getAll('decision');
  if (more.length === 0 && (decision === 'allow' || decision === 'deny')) return decision;
  throw new AuthorizeError('invalid_request', 'decision must be allow or deny', undefined, 'request');
}

async function allow(ctx: Context, deps: Deps, request: AuthorizationRequest, account: ReadTicket) {
  const { client, scope } = request;
  const { accountId, accountVersion, authTime, username, ticket } = account;
  const reply = await ask(
    deps.token,
    Token.authorizeConsented({ ...codeTerms(request), accountId, accountVersion, authTime, ticket }),
    deps.askTimeoutMs,
  );
  if (reply.ok) {
    const granted = { username: reply.value.username, clientId: client.clientId };
    securityEvent(deps.logger, ctx, 'consent.granted', granted, { scope: (scope ?? client.scopes).join(' ') });
    return redirectBack(ctx, request, { code: reply.value.code }, deps.issuer);
  }
  if (reply.code === 'consent.ticket_spent') throw expired('consent');
  // Disabled, deleted or changed (a new password, a role) since the password was checked: sign in again.
  if (reply.code === 'grant.invalid')
    return showForm(ctx, deps, request, 400, {
      username,
      problem: { kind: 'changed' },
    });
  const error = redirectError(reply.code);
  if (error !== undefined) throw new AuthorizeError(error, reply.message, request);
  replyValue(reply);
}

/** The form is read by the handler, as the sign-in's. */
const CONSENT = {
  ...pageForm(
    '/oauth/authorize/consent',
    'Allow or deny the application the scopes it asks, after signing in',
    S.ConsentForm,
  ),
  replies: {
    303: redirect(
      'Allowed: to the redirect_uri with `code`, `state` and `iss` (the consent is remembered); denied: with `error=access_denied`, `error_description`, `state` and `iss`',
    ),
    400: page(
      'The error page: a CSRF token or consent ticket that does not match this browser and request, expired, or was answered already (start again), or a `decision` other than allow or deny; or the sign-in form again (with a CSRF cookie) when the account changed since it signed in',
    ),
  },
} satisfies Declared;

/** POST /oauth/authorize/consent: the consent page's Allow or Deny. */
export function consentRoute(deps: Deps, form: Middleware<AppState>): Route {
  return oauthErrors(
    route({ ...CONSENT, access: PUBLIC, parse: form }, async function authorizationConsent(ctx) {
      const params = formParams(ctx);
      await answering(ctx, deps, params, async () => {
        const request = readAuthorizationRequest(params, deps.clients);
        const fresh = await deps.csrf.valid(ctx, params.get('csrf_token') ?? undefined, request.params);
        const account = fresh
          ? await deps.tickets.read(ctx, params.get('consent_ticket') ?? undefined, request.params)
          : undefined;
        if (!account) throw expired('consent');
        const decision = decisionOf(params);
        if (decision === 'allow') return allow(ctx, deps, request, account);
        const denied = await ask(deps.token, Token.denyConsent({ ticket: account.ticket }), deps.askTimeoutMs);
        if (!denied.ok && denied.code === 'consent.ticket_spent') throw expired('consent');
        replyValue(denied);
        securityEvent(deps.logger, ctx, 'consent.denied', {
          username: account.username,
          clientId: request.client.clientId,
        });
        redirectBack(ctx, request, { error: 'access_denied', error_description: DENIED }, deps.issuer);
      });
    }),
  );
}

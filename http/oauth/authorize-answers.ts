/**
 * What the authorization endpoint's routes share (the sign-in's and the consent's): their
 * dependencies, the headers of every answer, and the error page or redirect a refusal becomes.
 * Pages render in `pages/authorize-pages.ts`, redirects in `redirects.ts`.
 */
import type { Context } from 'koa';
import { z } from 'zod';
import type { KeyRing } from '../../src/security/key-ring.ts';
import { AuthorizeError } from './authorization-request.ts';
import type { OAuthRouteDeps } from './client-authentication.ts';
import type { ConsentTickets } from './consent-ticket.ts';
import type { AuthorizeCsrf } from './csrf.ts';
import type { Pages } from './page-views.ts';
import { showError } from './pages/authorize-pages.ts';
import { redirectBack } from './redirects.ts';
import type { ReplySpec } from '../openapi/replies.ts';
import { documented, form as formSpec } from '../validation.ts';

export interface AuthorizeRouteDeps extends OAuthRouteDeps {
  /** Sent back as `iss` with every response (RFC 9207). */
  readonly issuer: string;
  /** The signing keys: the sign-in form's CSRF key and the consent ticket's are derived from them. */
  readonly keys: KeyRing;
  /** The id_token keys, which check an `id_token_hint`. */
  readonly idTokenKeys: Pick<KeyRing, 'verifying'>;
  /** How the pages look and read (the theme of `security.sign-in.*`, `pages/sign-in-site.ts`). */
  readonly pages: Pages;
}

/** The routes' dependencies with what they make of them once. */
export type Deps = AuthorizeRouteDeps & {
  readonly csrf: AuthorizeCsrf;
  readonly tickets: ConsentTickets;
};

/** Every answer of the endpoint: never cached, never framed, never leaking its URL onwards. */
export function secureHeaders(ctx: Context, pages: Pages): void {
  ctx.set({
    'Content-Security-Policy': pages.csp,
    'X-Frame-Options': 'DENY',
    'Cache-Control': 'no-store',
    Pragma: 'no-cache',
    'Referrer-Policy': 'no-referrer',
  });
}

/** Renders what the checks threw: a page when the client or redirect is not known good, else a redirect. */
export async function answering(
  ctx: Context,
  deps: Deps,
  params: URLSearchParams,
  work: () => Promise<void>,
): Promise<void> {
  secureHeaders(ctx, deps.pages);
  try {
    await work();
  } catch (error) {
    if (error instanceof AuthorizeError)
      return error.target
        ? redirectBack(ctx, error.target, { error: error.error, error_description: error.description }, deps.issuer)
        : showError(ctx, deps.pages, error, params);
    throw error;
  }
}

/** A form that did not come from this browser's page for this request, or came too late. */
export const expired = (form: string): AuthorizeError =>
  new AuthorizeError(
    'invalid_request',
    `The ${form} form expired or was not served to this browser; start again from the application`,
    undefined,
    'expired',
  );

const PAGE_HEADERS = ['Content-Security-Policy', 'X-Frame-Options', 'Cache-Control', 'Referrer-Policy'];
export const page = (description: string, extra: string[] = []): ReplySpec => ({
  description,
  schema: z.string(),
  type: 'text/html',
  headers: [...PAGE_HEADERS, ...extra],
});
export const redirect = (description: string, extra: string[] = []): ReplySpec => ({
  ...page(description),
  headers: ['Location', ...PAGE_HEADERS, ...extra],
});

/**
 * What a form of the authorization endpoint's pages declares (the sign-in, the consent): a POST
 * whose form its handler reads, as the endpoint's query, since its refusals are pages or redirects.
 */
export const pageForm = (path: string, summary: string, form: z.ZodType) =>
  ({ method: 'POST', path, tag: 'secured', summary, body: documented(formSpec(form)) }) as const;

/**
 * What the authorization endpoint shows a person: the views its routes fill in (what to say, never
 * how), and the {@link Pages} that render them as HTML in the person's language.
 */

import type { AccountView } from './pages/account-pages.ts';
import type { LogoutPages } from './pages/logout-pages.ts';

/** Name and value pairs sent back with a form as hidden fields (the request, the CSRF token…). */
export type HiddenFields = ReadonlyMap<string, string>;

/** Why the last sign-in did not go through; the page says it in the person's language. */
export type SignInProblem =
  | { readonly kind: 'credentials' }
  | { readonly kind: 'throttled'; readonly retryAfter: number; readonly inFlight: boolean }
  /** The account changed (disabled, a new password, a role) between the sign-in and the consent. */
  | { readonly kind: 'changed' }
  /** A refusal of what was typed in, with the server's own (English) words. */
  | { readonly kind: 'invalid'; readonly message: string };

export interface SignInView {
  /** The client's name, or its id. */
  readonly clientName: string;
  readonly hidden: HiddenFields;
  /** Kept after a failed attempt. */
  readonly username?: string | undefined;
  readonly problem?: SignInProblem | undefined;
}

export interface ConsentView {
  /** The client's name, or its id. */
  readonly clientName: string;
  readonly clientId: string;
  /** Who is signed in: the account that would consent. */
  readonly username: string;
  /** The scopes the application asks for, in the order asked. */
  readonly scopes: readonly string[];
  /** Those of {@link scopes} the account had already allowed this client: the rest are new. */
  readonly granted: readonly string[];
  readonly hidden: HiddenFields;
}

/**
 * What went wrong when a request cannot be sent back to its application: `unknown_client`, a
 * `redirect_uri` that is not registered (or missing, or repeated), a form that `expired` (or was
 * not served to this browser), or any other malformed `request`.
 */
export type ErrorReason = 'unknown_client' | 'redirect_uri' | 'expired' | 'request';

export interface ErrorView {
  readonly reason: ErrorReason;
  /** The OAuth error code, in small print for the developer. */
  readonly error: string;
  /** The server's description (English), for the developer. */
  readonly description: string;
}

/** The index of the server (`GET /`): the links it serves, by the name its JSON gives each. */
export interface IndexView {
  readonly links: readonly { readonly name: string; readonly path: string }[];
}

/** What the person's browser asked for: the languages it accepts (and `ui_locales`, if sent). */
export interface PageRequest {
  readonly acceptLanguage: string;
  readonly uiLocales?: string | undefined;
}

/** The pages of the authorization endpoint, as HTML. */
export interface Pages {
  signIn(view: SignInView, request: PageRequest): string;
  consent(view: ConsentView, request: PageRequest): string;
  error(view: ErrorView, request: PageRequest): string;
  /** RP-initiated logout's pages (`pages/logout-pages.ts`). */
  readonly logout: LogoutPages;
  /** The account page (`pages/account-pages.ts`). */
  account(view: AccountView, request: PageRequest): string;
  /** The server's index (`GET /`), each link with a line on what it is for. */
  index(view: IndexView, request: PageRequest): string;
  /** The page's Content-Security-Policy. */
  readonly csp: string;
}

/**
 * RP-initiated logout's pages (OpenID Connect RP-Initiated Logout 1.0 §3): the confirmation asked
 * when the request carries no `id_token_hint`, or one of another account than the browser's, and
 * the page that ends a logout with nowhere registered to go back to. Rendered by the theme as the
 * authorization endpoint's pages are (`themed-pages.ts`), with no script.
 */
import type { HiddenFields, PageRequest } from '../page-views.ts';
import { decisionForm, hiddenList, type Render } from './page-parts.ts';

export interface LogoutView {
  /** The client that asks the logout, by name or id, when it is known. */
  readonly clientName: string | undefined;
  /** The checked request and the form's CSRF token. */
  readonly hidden: HiddenFields;
  /** Shown again because the form posted was too old or not this browser's. */
  readonly expired: boolean;
}

export interface LogoutDoneView {
  /** True: the person is signed out; false: they chose to stay signed in. */
  readonly signedOut: boolean;
}

export interface LogoutPages {
  /** "Sign out of {product}?", with Sign out and Stay signed in, posting to /oauth/logout. */
  confirm(view: LogoutView, request: PageRequest): string;
  /** The end of a logout with no registered URI to go back to. */
  done(view: LogoutDoneView, request: PageRequest): string;
}

export function logoutPages(render: Render): LogoutPages {
  return {
    confirm: (view, request) =>
      render('logout.html', request, 'logout.title', { client: view.clientName ?? '' }, (say) => ({
        intro: say(view.clientName === undefined ? 'logout.intro' : 'logout.introClient'),
        expired: view.expired,
        hidden: hiddenList(view.hidden),
        decision: decisionForm(say, '/oauth/logout', ['logout', 'logout.confirm'], ['stay', 'logout.stay']),
      })),
    done: (view, request) => {
      const key = view.signedOut ? 'signedOut' : 'stayedIn';
      return render('signed-out.html', request, `${key}.title`, {}, (say) => ({
        heading: say(`${key}.title`),
        text: say(`${key}.text`),
      }));
    },
  };
}

/**
 * The account page in the theme (`account.html`): a signed-in account's applications (the scopes
 * each was allowed, in the words of the consent page's `scope.*` messages) with a form each to
 * remove its access, and a form to sign out everywhere; the sign-in form when no session counts;
 * the signed-out page after signing out everywhere. Rendered by `themed-pages.ts`, every text from
 * the messages of the person's language.
 */
import type { PageRequest, SignInProblem } from '../page-views.ts';
import type { Render, Say } from './page-parts.ts';

/** An application the account allowed, as the page lists it. */
export interface AccountApplication {
  readonly clientId: string;
  /** The client's name, or its id. */
  readonly clientName: string;
  readonly scopes: readonly string[];
  /** When the account first allowed it (ISO 8601), if known. */
  readonly grantedAt?: string | undefined;
}

/** Why the page was answered with a refusal: its form expired, or was not served to this browser. */
export type AccountNotice = 'expired';

/** What the account page shows: the account's applications, the sign-in form, or the signed-out page. */
export type AccountView =
  | {
      readonly state: 'signed-in';
      readonly username: string;
      readonly applications: readonly AccountApplication[];
      /** The token of the page's forms, bound to the browser and the account. */
      readonly csrfToken: string;
      readonly notice?: AccountNotice | undefined;
    }
  | {
      readonly state: 'sign-in';
      readonly csrfToken: string;
      /** Kept after a failed attempt. */
      readonly username?: string | undefined;
      readonly problem?: SignInProblem | undefined;
      readonly notice?: AccountNotice | undefined;
    }
  | { readonly state: 'signed-out' };

/** A date as the page's language writes it (the day in UTC: the server knows no time zone of the person). */
function dateIn(lang: string, iso: string): string | undefined {
  const time = Date.parse(iso);
  if (Number.isNaN(time)) return undefined;
  try {
    return new Intl.DateTimeFormat(lang, { dateStyle: 'long', timeZone: 'UTC' }).format(time);
  } catch {
    return new Date(time).toISOString().slice(0, 10);
  }
}

const TITLES = {
  'signed-in': 'account.title',
  'sign-in': 'account.signIn.title',
  'signed-out': 'account.signedOut.title',
};

/** The account page for `view`, rendered by `render`; `problemText` says a sign-in's problem. */
export function accountPage(
  render: Render,
  problemText: (problem: SignInProblem, say: Say) => string,
  view: AccountView,
  request: PageRequest,
): string {
  const username = view.state === 'signed-in' ? view.username : '';
  return render('account.html', request, TITLES[view.state], { username }, (say, lang) => {
    const notice = view.state !== 'signed-out' && view.notice === 'expired' && { text: say('account.expired') };
    switch (view.state) {
      case 'signed-in':
        return {
          notice,
          signedIn: {
            csrfToken: view.csrfToken,
            anyApplication: view.applications.length > 0,
            applications: view.applications.map((app, index) => {
              const date = app.grantedAt === undefined ? undefined : dateIn(lang, app.grantedAt);
              return {
                index,
                clientId: app.clientId,
                name: app.clientName,
                allowedOn: date === undefined ? false : say('account.allowedOn', { date }),
                scopes: app.scopes.map((scope) => ({ description: say(`scope.${scope}`, {}, scope) })),
                csrfToken: view.csrfToken,
              };
            }),
          },
        };
      case 'sign-in':
        return {
          notice,
          signIn: {
            csrfToken: view.csrfToken,
            // Apart from the notice's `problem`: both can stand on the page.
            problemId: 'sign-in-problem',
            username: view.username ?? '',
            problem: view.problem === undefined ? false : { text: problemText(view.problem, say) },
            invalid: view.problem !== undefined && view.problem.kind !== 'throttled',
          },
        };
      case 'signed-out':
        return { signedOut: true };
    }
  });
}

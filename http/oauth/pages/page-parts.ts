/**
 * What the theme's pages are filled by: the {@link Render} function `themed-pages.ts` hands each
 * page's module, and the parts of a view more than one page has (hidden fields, a decision form).
 */
import type { HiddenFields, PageRequest } from '../page-views.ts';
import type { TemplateName } from './theme.ts';

/** The `hidden` of a template: its form's hidden fields. */
export const hiddenList = (hidden: HiddenFields) => [...hidden].map(([name, value]) => ({ name, value }));

/** A message of the page's language with its `{values}` filled in; `fallback` (else the key) when there is none. */
export type Say = (key: string, extra?: Readonly<Record<string, string>>, fallback?: string) => string;

/** A button of a {@link decisionForm}: the `decision` it posts and the message key of its label. */
type Choice = readonly [value: string, labelKey: string];

/**
 * The `decision` of a template that includes `{{> decision}}`: a form posting its `hidden` fields
 * to `action`, with a primary and a secondary button, each posting its own `decision`.
 */
export const decisionForm = (say: Say, action: string, [yes, yesKey]: Choice, [no, noKey]: Choice) => ({
  action,
  yes: { value: yes, label: say(yesKey) },
  no: { value: no, label: say(noKey) },
});

/**
 * A page of the theme: template `name` in the request's language, titled by the message `titleKey`,
 * its messages filled with `values` (and the product's name), `view` giving the template's own values.
 */
export type Render = (
  name: TemplateName,
  request: PageRequest,
  titleKey: string,
  values: Record<string, string>,
  view: (say: Say, lang: string) => Record<string, unknown>,
) => string;

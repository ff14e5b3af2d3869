/**
 * The form bodies of the OAuth endpoints, validated from their declared zod schema before the
 * handler, refused as RFC 6749 §5.2 says (`{error, error_description}`), never as the 400
 * `validation` problem: a parameter the schema reads given twice (RFC 6749 §3.2), a required one
 * absent or empty, then the declaration's own refusal for a field, else `invalid_request`; the
 * first the schema finds, in the order of its fields. A parameter the schema does not read is
 * ignored (RFC 6749 §3.2).
 */
import type { z } from 'zod';
import { invalidRequest } from './oauth/form.ts';
import { OAuthError } from './problems.ts';
import type { BodySpec } from './validation.ts';

/** An OAuth error the declaration gives for a field whose sent value its schema refuses. */
export interface FieldRefusal {
  /** The OAuth `error` (status 400, RFC 6749 §5.2). */
  readonly error: string;
  /** The `error_description`, from the value sent. */
  readonly description: (value: string) => string;
  /** What the API description says of it. */
  readonly words: string;
}

/** A form body validated before the handler, its refusals OAuth's. */
export interface OAuthFormBody<S extends z.ZodType = z.ZodType> extends BodySpec<S> {
  readonly type: 'application/x-www-form-urlencoded';
  readonly required: true;
  /** Refusals of a field's value by field name; a field without one is `invalid_request`. */
  readonly refusals: Readonly<Record<string, FieldRefusal>>;
}

export const oauthForm = <S extends z.ZodType>(
  schema: S,
  refusals: Readonly<Record<string, FieldRefusal>> = {},
): OAuthFormBody<S> => ({ type: 'application/x-www-form-urlencoded', schema, required: true, refusals });

export const isOAuthForm = (declared: unknown): declared is OAuthFormBody =>
  typeof declared === 'object' && declared !== null && 'refusals' in declared;

/** What the form sent: one value per parameter, or every value of a repeated one. */
type Sent = Readonly<Record<string, string | readonly string[]>>;

function sentOf(params: URLSearchParams): Sent {
  const values = new Map<string, string | string[]>();
  for (const [name, value] of params) {
    const had = values.get(name);
    values.set(name, had === undefined ? value : typeof had === 'string' ? [had, value] : [...had, value]);
  }
  // Own properties only, whatever the names (`__proto__` included).
  return Object.fromEntries(values);
}

/** Whether the schema refuses the form with `field` left out: then an empty value of it is a missing one. */
function requires(schema: z.ZodType, sent: Sent, field: string): boolean {
  const without = Object.fromEntries(Object.entries(sent).filter(([name]) => name !== field));
  return schema.safeParse(without).error?.issues.some((issue) => issue.path[0] === field) ?? false;
}

/** The OAuth error of the first issue the schema found with the form. */
function refusalOf(declared: OAuthFormBody, sent: Sent, issue: z.core.$ZodIssue): OAuthError {
  const field = issue.path[0];
  if (typeof field !== 'string') return invalidRequest('The request body is not valid');
  const value = sent[field];
  if (typeof value === 'object') return invalidRequest(`Parameter ${field} is repeated`);
  if (value === undefined || (value === '' && requires(declared.schema, sent, field)))
    return invalidRequest(`Missing parameter: ${field}`);
  const own = Object.hasOwn(declared.refusals, field) ? declared.refusals[field] : undefined;
  return own ? new OAuthError(400, own.error, own.description(value)) : invalidRequest(`Invalid parameter: ${field}`);
}

/** The form's parameters as its schema reads them, or the OAuth error of the first it refuses. */
export function readOAuthForm(declared: OAuthFormBody, params: URLSearchParams): unknown {
  const sent = sentOf(params);
  const result = declared.schema.safeParse(sent);
  if (result.success) return result.data;
  const [first] = result.error.issues;
  throw first ? refusalOf(declared, sent, first) : invalidRequest('The request body is not valid');
}

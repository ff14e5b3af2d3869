/** Request validation at the boundary: zod schemas in, typed values or a 400 problem out. */
import type { Context } from 'koa';
import type { z } from 'zod';
import { invalidFields, type FieldError, type HttpProblem } from './problems.ts';

function fieldErrors(error: z.ZodError): FieldError[] {
  return error.issues.map((issue) => {
    const field =
      issue.path.length > 0
        ? issue.path.join('.')
        : issue.code === 'unrecognized_keys'
          ? issue.keys.join(', ')
          : '(body)';
    return { field, message: issue.message };
  });
}

/** Parses `input` with `schema` or throws a 400 `validation` problem listing every bad field. */
export function validate<S extends z.ZodType>(schema: S, input: unknown, what = 'request'): z.infer<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  throw invalidFields(`The ${what} is not valid`, ...fieldErrors(result.error));
}

/** The JSON body as an object; an absent or non-object body is a 400 problem. */
export function jsonObject(ctx: Context): Record<string, unknown> {
  const body = ctx.request.body;
  if (body === undefined)
    throw invalidFields('A JSON object body is required', { field: '(body)', message: 'required' });
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw invalidFields('The body must be a JSON object', { field: '(body)', message: 'must be an object' });
  }
  return body as Record<string, unknown>;
}

/** Query parameters, with a repeated parameter refused (it is ambiguous). */
export function queryObject(ctx: Context): Record<string, string> {
  const params = new URLSearchParams(ctx.querystring);
  const out: Record<string, string> = {};
  for (const [key, value] of params) {
    if (key in out) throw invalidFields(`Query parameter ${key} is repeated`, { field: key, message: 'repeated' });
    out[key] = value;
  }
  return out;
}

/**
 * The id of a request that may name it in the query or in the JSON body: both at once must agree,
 * and one of them must be there; a 400 `validation` problem on the `id` field otherwise.
 */
export function idFromQueryOrBody<Id extends string>(fromQuery: Id | undefined, fromBody: Id | undefined): Id {
  const invalid = (message: string): HttpProblem => invalidFields('The request is not valid', { field: 'id', message });
  if (fromQuery !== undefined && fromBody !== undefined && fromQuery !== fromBody)
    throw invalid('differs between the query and the body');
  const id = fromQuery ?? fromBody;
  if (id === undefined) throw invalid('is required, in the query or the body');
  return id;
}

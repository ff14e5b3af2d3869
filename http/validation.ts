/**
 * Request validation at the boundary: zod schemas in, typed values or a 400 problem out; the
 * input a route declares ({@link InputDeclaration}) validated before its handler runs.
 */
import type { Context } from 'koa';
import type { z } from 'zod';
import { isOAuthForm, readOAuthForm, type OAuthFormBody } from './form-validation.ts';
import { formParams } from './middleware/body.ts';
import { invalidFields, type FieldError, type HttpProblem } from './problems.ts';
import { plainWords } from '../src/fields.ts';
import type { RouteContext, RouteMiddleware } from './state.ts';
import { ifMatchVersion } from './versioning.ts';

const plain = plainWords('request');
/** zod's parse options, one object for every parse. */
const inPlainWords = { error: plain };

/** One entry per field, in the house's words (`plain`): an unknown field each on its own. */
function fieldErrors(error: z.ZodError): FieldError[] {
  return error.issues.flatMap((issue) => {
    const at = issue.path.map(String);
    if (issue.code === 'unrecognized_keys')
      return issue.keys.map((key) => ({ field: [...at, key].join('.'), message: 'is not a field of this request' }));
    return [{ field: at.length > 0 ? at.join('.') : '(body)', message: issue.message }];
  });
}

/** Parses `input` with `schema` or throws a 400 `validation` problem listing every bad field. */
export function validate<S extends z.ZodType>(schema: S, input: unknown, what = 'request'): z.infer<S> {
  const result = schema.safeParse(input, inPlainWords);
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

/**
 * A schema the API description shows while the handler checks the input itself: its errors are
 * not the 400 `validation` problem (the OAuth endpoints), or it has a faster path than the schema.
 */
export interface Documented<T> {
  readonly documented: T;
}
export const documented = <T>(described: T): Documented<T> => ({ documented: described });

type BodyType = 'application/json' | 'application/x-www-form-urlencoded';
/** A request body as the description shows it. */
export interface BodySpec<S extends z.ZodType = z.ZodType> {
  readonly type: BodyType;
  readonly schema: S;
  readonly required: boolean;
}
/** A JSON body validated before the handler; an optional one may be absent (undefined), never malformed. */
export interface JsonBody<S extends z.ZodType = z.ZodType, R extends boolean = boolean> extends BodySpec<S> {
  readonly type: 'application/json';
  readonly required: R;
}
export const json = <S extends z.ZodType>(schema: S): JsonBody<S, true> => ({
  type: 'application/json',
  schema,
  required: true,
});
export const optionalJson = <S extends z.ZodType>(schema: S): JsonBody<S, false> => ({
  type: 'application/json',
  schema,
  required: false,
});
/**
 * A form body read by its handler, so only ever {@link documented}: the authorization endpoint's,
 * whose refusals are pages or redirects. The OAuth endpoints that answer JSON errors declare
 * `oauthForm` (form-validation.ts), validated before the handler.
 */
export const form = (schema: z.ZodType): BodySpec => ({
  type: 'application/x-www-form-urlencoded',
  schema,
  required: true,
});

/**
 * Path parameters that name a resource: a value the schema refuses names none, and is answered
 * with the resource's `notFound` (a 404, as for an unknown one), not the `validation` problem.
 */
export interface ResourcePath<S extends z.ZodObject = z.ZodObject> {
  readonly resource: S;
  readonly notFound: () => HttpProblem;
  /** Parameters the path must spell as they are, never percent-encoded (`%31` for `1`): one path per resource. */
  readonly unencoded?: readonly string[];
}
export const resourcePath = <S extends z.ZodObject>(
  resource: S,
  notFound: () => HttpProblem,
  unencoded?: readonly string[],
): ResourcePath<S> => ({ resource, notFound, ...(unencoded ? { unencoded } : {}) });

export const isResourcePath = (declared: unknown): declared is ResourcePath =>
  typeof declared === 'object' && declared !== null && 'resource' in declared;

/** The schema of a declaration's path parameters, whichever way it refuses. */
export const paramsSchema = (
  declared: InputDeclaration['params'],
): z.ZodObject | Documented<z.ZodObject> | undefined => (isResourcePath(declared) ? declared.resource : declared);

/** The input a route declares: validated before its handler, unless only {@link documented}. */
export interface InputDeclaration {
  readonly query?: z.ZodObject | Documented<z.ZodObject> | undefined;
  readonly params?: z.ZodObject | ResourcePath | Documented<z.ZodObject> | undefined;
  readonly body?: JsonBody | OAuthFormBody | Documented<BodySpec> | undefined;
  /** Takes an optional `If-Match: "<version>"` (412 when it names an older version). */
  readonly ifMatch?: true | undefined;
}

/** The validated input of a route's declaration: `unknown` when it validates nothing. */
export type InputOf<S> = (S extends { readonly query: infer Q extends z.ZodObject }
  ? { readonly query: z.output<Q> }
  : unknown) &
  (S extends { readonly params: infer P extends z.ZodObject }
    ? { readonly params: z.output<P> }
    : S extends { readonly params: ResourcePath<infer P> }
      ? { readonly params: z.output<P> }
      : unknown) &
  (S extends { readonly body: infer B extends JsonBody }
    ? { readonly body: B['required'] extends true ? z.output<B['schema']> : z.output<B['schema']> | undefined }
    : S extends { readonly body: infer B extends OAuthFormBody }
      ? { readonly body: z.output<B['schema']> }
      : unknown) &
  (S extends { readonly ifMatch: true } ? { readonly ifMatch: number | undefined } : unknown);

/** A route's handler: with its validated input when it declares some. */
export type Handler<I> = unknown extends I ? (ctx: RouteContext) => unknown : (ctx: RouteContext, input: I) => unknown;

export const isDocumented = (declared: unknown): declared is Documented<unknown> =>
  typeof declared === 'object' && declared !== null && 'documented' in declared;

const validatedHere = <T>(declared: T | Documented<unknown> | undefined): T | undefined =>
  isDocumented(declared) ? undefined : declared;

/**
 * The path parameters of a route at `path` (Koa form) as a {@link ResourcePath} reads them: the
 * schema's value, or the resource's 404 for one it refuses or one spelled percent-encoded.
 */
function resourceParams(path: string, declared: ResourcePath): (ctx: RouteContext) => unknown {
  const segments = path.split('/');
  const positions = (declared.unencoded ?? []).map((name) => [name, segments.indexOf(`:${name}`)] as const);
  return (ctx) => {
    const parsed = declared.resource.safeParse(ctx.params);
    if (!parsed.success) throw declared.notFound();
    if (positions.length > 0) {
      const sent = ctx.path.split('/');
      if (positions.some(([name, at]) => sent[at] !== ctx.params[name])) throw declared.notFound();
    }
    return parsed.data;
  };
}

/**
 * The handler behind the validation of the input its route (at `path`) declares: the query (`The
 * query is not valid`, a repeated parameter refused), the path parameters (`The path …`, or a
 * resource's 404), the JSON body (`The request …`), then `If-Match`, each a 400 `validation`
 * problem but for the 404; or an OAuth form body, with OAuth's errors (form-validation.ts). A
 * route that declares none runs its handler as it is: no frame, no object on its way.
 */
export function validated(
  doc: InputDeclaration,
  path: string,
  handler: (ctx: RouteContext, input: unknown) => unknown,
): RouteMiddleware {
  const query = validatedHere<z.ZodObject>(doc.query);
  const declaredParams = doc.params;
  const params = isResourcePath(declaredParams)
    ? resourceParams(path, declaredParams)
    : declaredParams && !isDocumented(declaredParams)
      ? (ctx: RouteContext) => validate(declaredParams, ctx.params, 'path')
      : undefined;
  const declaredBody = validatedHere<JsonBody | OAuthFormBody>(doc.body);
  const body = isOAuthForm(declaredBody) ? undefined : declaredBody;
  const oauthForm = isOAuthForm(declaredBody) ? declaredBody : undefined;
  const ifMatch = doc.ifMatch === true;
  if (!query && !params && !body && !oauthForm && !ifMatch) return handler as RouteMiddleware;
  return function validateInput(ctx) {
    const input: Record<string, unknown> = {};
    if (query) input['query'] = validate(query, queryObject(ctx), 'query');
    if (params) input['params'] = params(ctx);
    if (body && (body.required || ctx.request.body !== undefined))
      input['body'] = validate(body.schema, jsonObject(ctx));
    if (oauthForm) input['body'] = readOAuthForm(oauthForm, formParams(ctx));
    if (ifMatch) input['ifMatch'] = ifMatchVersion(ctx);
    return handler(ctx, input);
  };
}

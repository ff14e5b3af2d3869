/**
 * Checks real responses against the server's own OpenAPI document: the status is documented for
 * the operation, the body has a documented media type and validates against its JSON Schema
 * (draft 2020-12, with ajv), and every documented response header is present.
 */
import { Ajv2020 } from 'ajv/dist/2020.js';

interface MediaSpec {
  readonly schema?: object;
}
interface ResponseDoc {
  readonly content?: Readonly<Record<string, MediaSpec>>;
  readonly headers?: Readonly<Record<string, unknown>>;
}
interface OperationDoc {
  readonly responses: Readonly<Record<string, ResponseDoc>>;
}
export interface OpenApiDoc {
  readonly paths: Readonly<Record<string, Readonly<Record<string, OperationDoc>>>>;
}

export interface Observed {
  readonly method: string;
  /** The OpenAPI path template, such as `/api/employee/{id}`. */
  readonly template: string;
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
}

/** What does not match the document; empty when the response conforms. */
export type Mismatches = string[];

export function conformance(doc: OpenApiDoc): (seen: Observed) => Mismatches {
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
  const validators = new Map<object, ReturnType<typeof ajv.compile>>();
  const validate = (schema: object, value: unknown): string | undefined => {
    let v = validators.get(schema);
    if (!v) validators.set(schema, (v = ajv.compile(schema)));
    return v(value) ? undefined : ajv.errorsText(v.errors);
  };
  return (seen) => {
    const what = `${seen.method} ${seen.template} → ${seen.status}`;
    const response = doc.paths[seen.template]?.[seen.method.toLowerCase()]?.responses[String(seen.status)];
    if (!response) return [`${what}: status not documented`];
    const out: Mismatches = [];
    for (const header of Object.keys(response.headers ?? {}))
      if (!seen.headers.has(header)) out.push(`${what}: no ${header} header`);
    const content = response.content ?? {};
    if (Object.keys(content).length === 0)
      return seen.text === '' ? out : [...out, `${what}: a body where none is documented`];
    const type = (seen.headers.get('content-type') ?? '').split(';')[0]?.trim() ?? '';
    // A documented range (`image/*`) covers each type of it.
    const media = content[type] ?? content[`${type.split('/')[0] ?? ''}/*`];
    if (!media)
      return [...out, `${what}: content type ${type || '(none)'}, documented ${Object.keys(content).join(', ')}`];
    if (!media.schema || !/json/.test(type)) return out;
    const problem = validate(media.schema, JSON.parse(seen.text) as unknown);
    return problem ? [...out, `${what}: body does not match its schema: ${problem}`] : out;
  };
}

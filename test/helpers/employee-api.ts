/** Requests and assertions shared by the employee HTTP suites. */
import * as assert from 'uvu/assert';

export interface EmployeeJson {
  id: string;
  name: string;
  dateOfBirth: string;
  createdAt: string;
  updatedAt: string;
  version: number;
}

export interface ProblemJson {
  type: string;
  title: string;
  status: number;
  detail: string;
  errors?: { field: string; message: string }[];
}

export interface CallOptions {
  readonly token?: string | undefined;
  /** Sent as JSON unless a string (sent as is). */
  readonly body?: unknown;
  readonly headers?: Record<string, string>;
}

export function caller(url: () => string) {
  return (method: string, path: string, options: CallOptions = {}): Promise<Response> => {
    const { token, body, headers = {} } = options;
    const json = body !== undefined && typeof body !== 'string';
    return fetch(`${url()}${path}`, {
      method,
      headers: {
        ...(token ? { Authorization: `Bearer ${token}` } : {}),
        ...(json ? { 'Content-Type': 'application/json' } : {}),
        ...headers,
      },
      ...(body === undefined ? {} : { body: json ? JSON.stringify(body) : (body as string) }),
    });
  };
}

/** A problem+json response with `status`; with `fields`, its `errors` name each of them. */
export async function expectProblem(
  res: Response,
  status: number,
  fields: readonly string[] = [],
): Promise<ProblemJson> {
  const text = await res.text();
  assert.is(res.status, status, `expected ${status}, got ${res.status}: ${text}`);
  assert.match(res.headers.get('content-type') ?? '', /^application\/problem\+json/);
  const problem = JSON.parse(text) as ProblemJson;
  assert.is(problem.status, status);
  if (fields.length > 0) {
    const named = (problem.errors ?? []).map((e) => e.field);
    for (const field of fields)
      assert.ok(named.includes(field), `errors ${JSON.stringify(problem.errors)} do not name ${field}`);
  }
  return problem;
}

/** The RFC 6750 403 for a token without `scope`. */
export async function expectInsufficientScope(res: Response, scope: string): Promise<void> {
  assert.is(res.status, 403);
  assert.match(res.headers.get('www-authenticate') ?? '', new RegExp(`error="insufficient_scope".*scope="${scope}"`));
  assert.is(((await res.json()) as { error: string }).error, 'insufficient_scope');
}

/** A date `days` from today (UTC), `YYYY-MM-DD`. */
export const dayFromToday = (days: number): string =>
  new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);

/** JSON requests against the user-data service, as a client would make them. */
import { bearer } from './tokens.ts';

export interface Sent {
  readonly status: number;
  readonly headers: Headers;
  /** Parsed JSON, or undefined for an empty body. */
  readonly body: unknown;
}

export async function send(
  url: string,
  method: string,
  path: string,
  options: { token?: string; json?: unknown; headers?: Record<string, string>; signal?: AbortSignal } = {},
): Promise<Sent> {
  const headers: Record<string, string> = { ...(options.token ? bearer(options.token) : {}), ...options.headers };
  if (options.json !== undefined) headers['Content-Type'] ??= 'application/json';
  const res = await fetch(`${url}${path}`, {
    method,
    headers,
    ...(options.signal === undefined ? {} : { signal: options.signal }),
    ...(options.json === undefined
      ? {}
      : { body: typeof options.json === 'string' ? options.json : JSON.stringify(options.json) }),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text === '' ? undefined : (JSON.parse(text) as unknown) };
}

/** The distinct `field`s of a 400 problem's `errors`. */
export function errorFields(body: unknown): string[] {
  const errors = (body as { errors?: { field: string }[] }).errors ?? [];
  return [...new Set(errors.map((e) => e.field))];
}

export interface UserJson {
  id: string;
  name: string;
  email: string;
  createdAt: string;
  updatedAt: string;
  version: number;
}
export interface ActivityJson {
  id: string;
  userId: string;
  type: string;
  detail: Record<string, unknown>;
  at: string;
}
export interface UserActivityJson {
  user: UserJson;
  activities: ActivityJson[];
  nextCursor: string | null;
}

/**
 * The wire forms of errors: RFC 9457 problem details under /api (and by default), RFC 6749 §5.2
 * OAuth error bodies under /oauth and for every authentication failure; and the one table that
 * maps actors' reply codes to HTTP.
 */
import { STATUS_CODES } from 'node:http';

export interface FieldError {
  readonly field: string;
  readonly message: string;
}

/** A boundary error rendered as `application/problem+json`. */
export class HttpProblem extends Error {
  override readonly name = 'HttpProblem';
  readonly status: number;
  readonly code: string;
  readonly detail: string;
  readonly errors: readonly FieldError[] | undefined;
  readonly headers: Readonly<Record<string, string>>;
  constructor(status: number, code: string, detail: string, options: { errors?: readonly FieldError[]; headers?: Record<string, string> } = {}) {
    super(detail);
    this.status = status;
    this.code = code;
    this.detail = detail;
    this.errors = options.errors;
    this.headers = options.headers ?? {};
  }
}

/** An OAuth or bearer-authentication error rendered as `{error, error_description}`. */
export class OAuthError extends Error {
  override readonly name = 'OAuthError';
  readonly status: number;
  readonly error: string;
  readonly description: string;
  readonly headers: Readonly<Record<string, string>>;
  constructor(status: number, error: string, description: string, headers: Record<string, string> = {}) {
    super(description);
    this.status = status;
    this.error = error;
    this.description = description;
    this.headers = headers;
  }
}

export interface ProblemBody {
  readonly type: string;
  readonly title: string;
  readonly status: number;
  readonly detail: string;
  readonly errors?: readonly FieldError[];
  readonly requestId: string;
}

export const problemType = (code: string): string => (code === 'about:blank' ? code : `urn:problem:troupe:${code}`);

export function problemBody(status: number, code: string, detail: string, requestId: string, errors?: readonly FieldError[]): ProblemBody {
  return {
    type: problemType(code), title: STATUS_CODES[status] ?? 'Error', status, detail,
    ...(errors && errors.length > 0 ? { errors } : {}), requestId,
  };
}

/** Seconds a client is told to wait after a 503. */
export const RETRY_AFTER_SECONDS = '1';

/** HTTP status of every reply code an actor can send; unknown codes are 500. */
const REPLY_STATUS: Readonly<Record<string, number>> = {
  'client.invalid': 401,
  'grant.invalid': 400,
  'grant.unauthorized': 400,
  'scope.invalid': 400,
  'user.not_found': 404,
  'user.email_taken': 409,
  'user.version_conflict': 412,
  'activity.user_not_found': 404,
  'employee.not_found': 404,
  'employee.version_conflict': 412,
  unavailable: 503,
};

export const statusOfReply = (code: string): number => REPLY_STATUS[code] ?? 500;

/** OAuth `error` values of the token actor's reply codes. */
export const OAUTH_ERROR: Readonly<Record<string, string>> = {
  'client.invalid': 'invalid_client',
  'grant.invalid': 'invalid_grant',
  'grant.unauthorized': 'unauthorized_client',
  'scope.invalid': 'invalid_scope',
};

/** A reply failure as a problem (for /api routes). */
export function problemFromReply(code: string, message: string): HttpProblem {
  const status = statusOfReply(code);
  if (status === 500) return new HttpProblem(500, 'internal', 'The server could not complete the request');
  if (status === 503) return new HttpProblem(503, code, message, { headers: { 'Retry-After': RETRY_AFTER_SECONDS } });
  return new HttpProblem(status, code, message);
}

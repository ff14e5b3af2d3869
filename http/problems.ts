/**
 * The wire forms of errors: RFC 9457 problem details under /api (and by default), RFC 6749 §5.2
 * OAuth error bodies under /oauth and for every authentication failure; and the one table that
 * maps actors' reply codes to HTTP, with {@link replyValue}, the one way a route reads a reply.
 */
import { STATUS_CODES } from 'node:http';
import type * as Activity from '../actors/activity/protocol.ts';
import type * as Employee from '../actors/employee/protocol.ts';
import type * as Accounts from '../actors/accounts/protocol.ts';
import type * as Token from '../actors/token/protocol.ts';
import type * as User from '../actors/user/protocol.ts';
import type { Reply, SystemCode } from '../src/messaging/reply.ts';

/**
 * The body every error of a route is rendered in: RFC 9457 problem details, or RFC 6749 §5.2
 * `{error, error_description}` for the OAuth endpoints. The route declares it, so the error
 * handler and the API description read the same decision.
 */
export type ErrorFormat = 'problem' | 'oauth';

export interface FieldError {
  readonly field: string;
  readonly message: string;
}

/** The codes the HTTP layer raises itself, besides the actors' reply codes. */
export type BoundaryCode =
  /** A request that fails its schema; `errors` names each bad field. */
  | 'validation'
  /** A body that does not parse (JSON, or its Content-Encoding). */
  | 'bad_request'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'not_found'
  | 'method_not_allowed'
  | 'not_implemented'
  /** Too many password checks of an account, or from an address, for now: `Retry-After` says how long. */
  | 'too_many_requests';

/** Every code a problem can carry: its `type` is `urn:problem:troupe:<code>`. */
export type ProblemCode = BoundaryCode | ReplyCode;

/** A boundary error rendered as `application/problem+json`. */
export class HttpProblem extends Error {
  override readonly name = 'HttpProblem';
  readonly status: number;
  readonly code: ProblemCode;
  readonly detail: string;
  readonly errors: readonly FieldError[] | undefined;
  readonly headers: Readonly<Record<string, string>>;
  constructor(
    status: number,
    code: ProblemCode,
    detail: string,
    options: { errors?: readonly FieldError[]; headers?: Record<string, string> } = {},
  ) {
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

export const problemType = (code: ProblemCode): string => `urn:problem:troupe:${code}`;

export function problemBody(
  status: number,
  code: ProblemCode,
  detail: string,
  requestId: string,
  errors?: readonly FieldError[],
): ProblemBody {
  return {
    type: problemType(code),
    title: STATUS_CODES[status] ?? 'Error',
    status,
    detail,
    ...(errors && errors.length > 0 ? { errors } : {}),
    requestId,
  };
}

/** Seconds a client is told to wait after a 503. */
export const RETRY_AFTER_SECONDS = '1';

/** The one text of every 503, whatever was out of reach: the client's next move is the same. */
export const UNAVAILABLE_DETAIL = 'The service is unavailable; try again shortly';

/**
 * The one text of every 500: never the failure's own text, which may say more than a client should
 * read. The body's `requestId` names the request for a report.
 */
export const INTERNAL_DETAIL = 'The server could not complete the request; quote its request id';

/** A 503 `unavailable` problem, with `Retry-After`. */
export const unavailable = (): HttpProblem =>
  new HttpProblem(503, 'unavailable', UNAVAILABLE_DETAIL, { headers: { 'Retry-After': RETRY_AFTER_SECONDS } });

/**
 * The 503 of a request that arrives while the server drains before it stops: as every 503, with
 * `Connection: close`, so that the client opens its next connection elsewhere or later.
 */
export const shuttingDown = (): HttpProblem =>
  new HttpProblem(503, 'unavailable', UNAVAILABLE_DETAIL, {
    headers: { 'Retry-After': RETRY_AFTER_SECONDS, Connection: 'close' },
  });

/** The 400 `validation` problem: `detail` for the request as a whole, one row per bad field. */
export const invalidFields = (detail: string, ...errors: FieldError[]): HttpProblem =>
  new HttpProblem(400, 'validation', detail, { errors });

/** An actor's reply code as the client reads it. */
interface WireError {
  readonly status: number;
  /** Sent instead of the reply's message, which may say more than a client should read. */
  readonly detail?: string;
  readonly headers?: Readonly<Record<string, string>>;
}

/** The token actor's codes are OAuth errors wherever they are raised: RFC 6749 §5.2 `error`. */
interface OAuthWireError extends WireError {
  readonly oauth: string;
}

/** Every code an actor can reply with: each protocol's `ErrorCode`, and the system's. */
export type ReplyCode =
  | Token.ErrorCode
  | Token.ConsentErrorCode
  | Token.TicketErrorCode
  | Accounts.ErrorCode
  | User.ErrorCode
  | Employee.ErrorCode
  | Activity.ErrorCode
  | SystemCode;

/** One row per reply code, so that a code added to a protocol does not compile until it has one. */
export type ReplyTable = {
  readonly [C in ReplyCode]: C extends Token.ErrorCode ? OAuthWireError : WireError & { readonly oauth?: never };
};

/** The one table from actors' reply codes to HTTP. */
export const REPLY_ERRORS = {
  'client.invalid': { status: 401, oauth: 'invalid_client' },
  'client.mismatch': { status: 400, oauth: 'unauthorized_client' },
  'grant.invalid': { status: 400, oauth: 'invalid_grant' },
  'request.invalid': { status: 400, oauth: 'invalid_request' },
  'grant.unauthorized': { status: 400, oauth: 'unauthorized_client' },
  'scope.invalid': { status: 400, oauth: 'invalid_scope' },
  'account.not_found': { status: 404 },
  'account.username_taken': { status: 409 },
  'account.username_reserved': { status: 409 },
  'account.last_admin': { status: 409 },
  'role.unknown': { status: 400 },
  'role.name_taken': { status: 409 },
  'password.invalid': { status: 400 },
  'password.incorrect': { status: 400 },
  'login.not_found': { status: 404 },
  'consent.not_found': { status: 404 },
  'consent.ticket_spent': { status: 400 },
  'user.not_found': { status: 404 },
  'user.email_taken': { status: 409 },
  'user.version_conflict': { status: 412 },
  'employee.not_found': { status: 404 },
  'employee.version_conflict': { status: 412 },
  internal: { status: 500, detail: INTERNAL_DETAIL },
  unavailable: { status: 503, detail: UNAVAILABLE_DETAIL, headers: { 'Retry-After': RETRY_AFTER_SECONDS } },
} as const satisfies ReplyTable;

/** What one route says differently for a code (a challenge header, a fixed description); the table gives the rest. */
export type ReplyOverrides<C extends ReplyCode> = { readonly [K in C]?: Omit<WireError, 'status'> };

function replyError(
  code: ReplyCode,
  message: string,
  override: Omit<WireError, 'status'> | undefined,
): HttpProblem | OAuthError {
  const row: WireError & { readonly oauth?: string } = override
    ? { ...REPLY_ERRORS[code], ...override }
    : REPLY_ERRORS[code];
  const detail = row.detail ?? message;
  if (row.oauth !== undefined) return new OAuthError(row.status, row.oauth, detail, { ...row.headers });
  return new HttpProblem(row.status, code, detail, { headers: { ...row.headers } });
}

/**
 * The value of a reply; a failure is thrown as the error its code maps to (problem+json, or OAuth
 * JSON for the token actor's codes and anything under /oauth), rendered by the error handler.
 */
export function replyValue<T, C extends ReplyCode>(reply: Reply<T, C>, overrides?: ReplyOverrides<C | SystemCode>): T {
  if (reply.ok) return reply.value;
  throw replyError(reply.code, reply.message, overrides?.[reply.code]);
}

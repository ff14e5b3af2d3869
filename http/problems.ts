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
import type { ThrottleCode } from '../src/security/login-attempts.ts';

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

/**
 * The RFC 6749 §5.2 `error` of a failure that has none of its own, on a route whose errors are
 * OAuth's: by its status.
 */
export function oauthErrorOf(status: number): string {
  if (status === 503) return 'temporarily_unavailable';
  if (status === 429) return 'too_many_requests';
  return status >= 500 ? 'server_error' : 'invalid_request';
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
  /** What the code means, in the API description's words. */
  readonly description: string;
  /**
   * The problem code the client reads, where the boundary's rather than the reply's own: a
   * throttled login is `too_many_requests` wherever it is refused.
   */
  readonly problem?: BoundaryCode;
  /** Sent instead of the reply's message, which may say more than a client should read. */
  readonly detail?: string;
  readonly headers?: Readonly<Record<string, string>>;
}

/** The token actor's codes are OAuth errors wherever they are raised: RFC 6749 §5.2 `error`. */
interface OAuthWireError extends WireError {
  readonly oauth: string;
}

/**
 * The password policy (src/security/password-policy.ts), in the API description's words: what a
 * new password that is `password.invalid` failed.
 */
const PASSWORD_POLICY =
  "the password policy: 8 visible characters to 72 bytes, no control character, not a common password, neither the username nor the product's name, nor mostly one character, only runs and sequences or a short block repeated";

/** Every code an actor can reply with: each protocol's `ErrorCode`, the login throttle's, and the system's. */
export type ReplyCode =
  | ThrottleCode
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
  'client.invalid': { status: 401, oauth: 'invalid_client', description: 'no, malformed or wrong client credentials' },
  'client.mismatch': { status: 400, oauth: 'unauthorized_client', description: 'issued to another client' },
  'grant.invalid': { status: 400, oauth: 'invalid_grant', description: 'the grant is not valid' },
  'request.invalid': { status: 400, oauth: 'invalid_request', description: 'a malformed request' },
  'grant.unauthorized': { status: 400, oauth: 'unauthorized_client', description: 'not a grant type of the client' },
  'scope.invalid': { status: 400, oauth: 'invalid_scope', description: "wider than the client's registered scope" },
  'account.not_found': { status: 404, description: 'no account has the id' },
  'account.username_taken': { status: 409, description: 'another account has the username' },
  'account.username_reserved': { status: 409, description: "a registered client's id (one namespace of subjects)" },
  'account.email_taken': { status: 409, description: 'another account has the email (in whichever case)' },
  'account.last_admin': { status: 409, description: 'the last enabled ADMIN cannot be deleted, disabled or demoted' },
  'role.unknown': { status: 400, description: 'a role that does not exist' },
  'role.name_taken': { status: 409, description: 'the role exists' },
  'password.invalid': { status: 400, description: PASSWORD_POLICY },
  'password.incorrect': { status: 400, description: 'the current password is wrong' },
  'login.not_found': { status: 404, description: 'no live login of the account has the sid' },
  // Retry-After: the reply's own `retryAfter` (replyError), this only where a reply has none.
  'login.throttled': {
    status: 429,
    problem: 'too_many_requests',
    headers: { 'Retry-After': RETRY_AFTER_SECONDS },
    description: 'past the login throttle',
  },
  'consent.not_found': { status: 404, description: 'the account has not allowed the client' },
  'consent.ticket_spent': { status: 400, description: 'the consent was answered already' },
  'user.not_found': { status: 404, description: 'no such user' },
  'user.email_taken': { status: 409, description: 'another user has the email' },
  'user.version_conflict': { status: 412, description: '`If-Match` names an older version' },
  'employee.not_found': { status: 404, description: 'no such record' },
  'employee.version_conflict': { status: 412, description: '`If-Match` names an older version' },
  internal: {
    status: 500,
    detail: INTERNAL_DETAIL,
    description: 'an unexpected failure; the body names the request id, never a stack',
  },
  unavailable: {
    status: 503,
    detail: UNAVAILABLE_DETAIL,
    headers: { 'Retry-After': RETRY_AFTER_SECONDS },
    description: 'overloaded, or a store (the signing-key set in it included) cannot be read',
  },
} as const satisfies ReplyTable;

/** What one route says differently for a code (a challenge header, a fixed description); the table gives the rest. */
export type ReplyOverrides<C extends ReplyCode> = {
  readonly [K in C]?: Omit<WireError, 'status' | 'description' | 'problem'>;
};

/** A failure as an actor sends it; one that says when to try again carries `retryAfter` (seconds). */
type SentFailure = Extract<Reply<unknown, ReplyCode>, { ok: false }> & { readonly retryAfter?: number };

/** The error a failed reply is answered with: its row of the table, with what the route overrides. */
export function replyError(
  failure: SentFailure,
  override?: ReplyOverrides<ReplyCode>[ReplyCode],
): HttpProblem | OAuthError {
  const row: Omit<WireError, 'description'> & { readonly oauth?: string } = {
    ...REPLY_ERRORS[failure.code],
    ...override,
  };
  const detail = row.detail ?? failure.message;
  const headers = {
    ...row.headers,
    ...(failure.retryAfter === undefined ? {} : { 'Retry-After': String(failure.retryAfter) }),
  };
  if (row.oauth !== undefined) return new OAuthError(row.status, row.oauth, detail, headers);
  return new HttpProblem(row.status, row.problem ?? failure.code, detail, { headers });
}

/**
 * The value of a reply; a failure is thrown as the error its code maps to (problem+json, or OAuth
 * JSON for the token actor's codes and anything under /oauth), rendered by the error handler.
 */
export function replyValue<T, C extends ReplyCode>(
  reply: Reply<T, C> | (SentFailure & { readonly code: C }),
  overrides?: ReplyOverrides<C | SystemCode>,
): T {
  if (reply.ok) return reply.value;
  throw replyError(reply, overrides?.[reply.code]);
}

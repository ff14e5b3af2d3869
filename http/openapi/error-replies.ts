/**
 * A route's error replies in the API description, taken from what will answer them: the reply
 * table (`REPLY_ERRORS`) for each code the route lists, the route's access for the refusals before
 * its handler (401, 403, 429, 503), and its declared input for the boundary's (400, 413, 415).
 * Status, body and words come from one place each, in the error format the route declares.
 */
import type { Access } from '../guards.ts';
import { oauthErrorOf, REPLY_ERRORS, type BoundaryCode, type ErrorFormat, type ReplyCode } from '../problems.ts';
import { isOAuthForm } from '../form-validation.ts';
import { isDocumented, isResourcePath, type InputDeclaration } from '../validation.ts';
import { oauthError, problem, type Replies, type ReplySpec } from './replies.ts';
import { OAuthErrorBody } from './shapes.ts';

/** A reply code a route answers, with words of its own where the table's say too little for it. */
export type RouteError = ReplyCode | readonly [ReplyCode, string];

/** What a route declares that its error replies are read from. */
type RouteDeclaration = InputDeclaration & {
  readonly errors?: readonly RouteError[] | undefined;
  readonly replies: Replies;
};

/** One way a route can fail: its status, the name the client reads, the words and headers. */
interface Entry {
  readonly status: number;
  /** The code a problem carries, or the OAuth `error` for a route whose errors are OAuth's. */
  readonly problemCode: string;
  readonly oauthCode: string;
  readonly words: string;
  readonly headers?: readonly string[];
  /** An access check's refusal, whose body is OAuth's on every route (RFC 6750). */
  readonly always?: 'oauth';
}

/** The boundary's codes, raised by HTTP itself before a handler runs. */
const BOUNDARY: { readonly [C in BoundaryCode]?: { readonly status: number; readonly words: string } } = {
  validation: { status: 400, words: 'the request fails its schema; `errors` names each bad field' },
  bad_request: { status: 400, words: 'malformed JSON' },
  payload_too_large: { status: 413, words: 'the body is too large' },
  unsupported_media_type: { status: 415, words: 'not application/json' },
};

const boundary = (code: BoundaryCode): Entry => {
  const row = BOUNDARY[code] ?? { status: 400, words: code };
  return { ...row, problemCode: code, oauthCode: oauthErrorOf(row.status) };
};

/** A refusal of the access check, always OAuth's words (RFC 6750, RFC 6749 §5.2). */
const refusal = (status: number, code: string, words: string, headers?: readonly string[]): Entry => ({
  status,
  problemCode: code,
  oauthCode: code,
  words,
  ...(headers ? { headers } : {}),
  always: 'oauth',
});

function replyEntry(error: RouteError): Entry {
  const [code, words] = typeof error === 'string' ? [error, undefined] : error;
  const row: (typeof REPLY_ERRORS)[ReplyCode] = REPLY_ERRORS[code];
  const headers = 'headers' in row ? Object.keys(row.headers) : [];
  return {
    status: row.status,
    problemCode: 'problem' in row ? row.problem : code,
    oauthCode: 'oauth' in row ? row.oauth : oauthErrorOf(row.status),
    words: words ?? row.description,
    ...(headers.length > 0 ? { headers } : {}),
  };
}

const CHALLENGE = ['WWW-Authenticate'];
const FIRST_PARTY =
  "the token was issued to a client that is not one of the service's own applications (the `security.jwt.*` client, or one registered with `consent: implicit`), whatever its scope";

/** What the route's access refuses before (or, for a role, after) its handler runs. */
function accessEntries(access: Access): Entry[] {
  switch (access.kind) {
    case 'public':
      return [];
    case 'client':
      return [
        refusal(
          400,
          'invalid_request',
          'not form-encoded, a missing or repeated parameter, credentials in the query string',
        ),
        refusal(
          401,
          'invalid_client',
          access.confidential
            ? 'no, malformed or wrong client credentials, a secret sent by a method the client did not register, or a public client (`none`), which cannot authenticate'
            : 'no, malformed or wrong client credentials, or a secret sent by a method the client did not register',
          CHALLENGE,
        ),
        refusal(429, 'too_many_requests', 'too many failed client authentications from the address', ['Retry-After']),
        replyEntry('unavailable'),
      ];
    case 'bearer':
    case 'role': {
      const { scope, role, firstParty } = { scope: undefined, firstParty: undefined, ...access };
      return [
        refusal(400, 'invalid_request', 'two Authorization headers, or a token in the query string', CHALLENGE),
        refusal(401, 'unauthorized', 'no token', CHALLENGE),
        refusal(401, 'invalid_token', 'revoked, expired, or of a disabled account', CHALLENGE),
        ...(scope === undefined
          ? []
          : [refusal(403, 'insufficient_scope', `the \`${scope}\` scope is missing`, CHALLENGE)]),
        ...(firstParty ? [refusal(403, 'insufficient_scope', FIRST_PARTY, CHALLENGE)] : []),
        ...(role === undefined
          ? []
          : [
              refusal(403, 'access_denied', `not ${role}${access.kind === 'role' ? ', once the handler has run' : ''}`),
            ]),
        replyEntry('unavailable'),
      ];
    }
    default:
      return access satisfies never;
  }
}

/**
 * What an OAuth form's declaration refuses besides the client access's `invalid_request` (a
 * missing or repeated parameter): each field's own OAuth error, unless the route says it already.
 */
function formEntries(doc: RouteDeclaration): Entry[] {
  if (!isOAuthForm(doc.body)) return [];
  const said = new Set((doc.errors ?? []).map((e) => replyEntry(e).oauthCode));
  const own = doc.replies[400]?.description ?? '';
  return Object.values(doc.body.refusals)
    .filter((r) => !said.has(r.error) && !own.includes(`\`${r.error}\``))
    .map((r) => ({ status: 400, problemCode: r.error, oauthCode: r.error, words: r.words }));
}

/** What the boundary refuses of the route's declared input, validated before its handler. */
function inputEntries(doc: RouteDeclaration): Entry[] {
  const validatedBody = doc.body !== undefined && !isDocumented(doc.body);
  const json = validatedBody && doc.body.type === 'application/json';
  const validated =
    json || [doc.query, doc.params].some((d) => d !== undefined && !isDocumented(d) && !isResourcePath(d));
  return [
    ...(validated ? [boundary('validation')] : []),
    ...(json ? [boundary('bad_request'), boundary('unsupported_media_type')] : []),
    ...formEntries(doc),
    ...(doc.body === undefined ? [] : [boundary('payload_too_large')]),
  ];
}

/**
 * The route's error replies by status, each naming its codes with their words, merged with what
 * the route declares itself for the same status (a page, an error the form reader raises).
 */
export function errorReplies(
  route: { readonly access: Access; readonly errorFormat: ErrorFormat },
  doc: RouteDeclaration,
): Replies {
  const entries = [...accessEntries(route.access), ...inputEntries(doc), ...(doc.errors ?? []).map(replyEntry)];
  const byStatus = new Map<number, Entry[]>();
  for (const e of entries) byStatus.set(e.status, [...(byStatus.get(e.status) ?? []), e]);
  const out: Record<number, ReplySpec> = {};
  for (const [status, list] of byStatus) {
    const oauth = (e: Entry): boolean => e.always === 'oauth' || route.errorFormat === 'oauth';
    const words = list.map((e) => `\`${oauth(e) ? e.oauthCode : e.problemCode}\`: ${e.words}`);
    const own = doc.replies[status];
    const description = [...(own ? [own.description] : []), ...new Set(words)].join('; ');
    // The headers every answer of the status carries: a challenge only where each refusal sends one.
    const shared = list.map((e) => e.headers ?? []).reduce((a, b) => a.filter((h) => b.includes(h)));
    const headers = [...new Set([...(own?.headers ?? []), ...shared])];
    if (own?.schema) out[status] = { ...own, description, headers };
    else if (list.every(oauth)) out[status] = oauthError(description, headers);
    else {
      const asProblem = problem(description, headers);
      // A status both the access check (OAuth's body) and the route (a problem) can answer.
      out[status] = list.some(oauth)
        ? { ...asProblem, alternative: { type: 'application/json', schema: OAuthErrorBody } }
        : asProblem;
    }
  }
  return { ...doc.replies, ...out };
}

/** Builds the OpenAPI 3.1 document from the routes' declarations: their zod schemas (the validators themselves) and replies. */
import { z } from 'zod';
import type { Access } from '../guards.ts';
import { REPLY_ERRORS, type ErrorFormat } from '../problems.ts';
import { type Method, type RouteDoc } from '../route-table.ts';
import { isDocumented, paramsSchema, type BodySpec, type Documented } from '../validation.ts';
import { errorReplies } from './error-replies.ts';
import type { ReplySpec } from './replies.ts';
import { OAuthErrorBody as OAuthError, Problem } from './shapes.ts';

type Json = Record<string, unknown>;

/** A route as the document describes it: what it declared, and who may run it as served. */
export interface DescribedRoute {
  readonly method: Method;
  /** OpenAPI form: `/api/employee/{id}`. */
  readonly path: string;
  readonly access: Access;
  readonly errorFormat: ErrorFormat;
  readonly doc: RouteDoc;
}

/** The schema a declaration shows, whether the route validates with it or its handler does. */
const shown = <T>(declared: T | Documented<T> | undefined): T | undefined =>
  (isDocumented(declared) ? declared.documented : declared) as T | undefined;

/** JSON Schema 2020-12 (the dialect of OpenAPI 3.1) of what a request may send. */
function jsonSchema(schema: z.ZodType, io: 'input' | 'output' = 'input'): Json {
  const { $schema: _, ...rest } = z.toJSONSchema(schema, {
    io,
    unrepresentable: 'any',
    target: 'draft-2020-12',
  }) as Json;
  return rest;
}

function parameters(doc: RouteDoc): Json[] {
  const list = (where: 'query' | 'path', shape: z.ZodObject | undefined): Json[] => {
    if (!shape) return [];
    const schema = jsonSchema(shape) as { properties?: Record<string, Json>; required?: string[] };
    return Object.entries(schema.properties ?? {}).map(([name, s]) => ({
      name,
      in: where,
      required: where === 'path' || (schema.required ?? []).includes(name),
      schema: s,
    }));
  };
  const header = (name: string, description: string): Json => ({
    name,
    in: 'header',
    required: false,
    description,
    schema: { type: 'string' },
  });
  return [
    ...list('path', shown(paramsSchema(doc.params))),
    ...list('query', shown(doc.query)),
    ...(doc.ifMatch ? [header('If-Match', 'The version the change is based on, quoted: `"3"`')] : []),
    header('X-Request-Id', 'Echoed back; 1–128 characters of `A-Za-z0-9._~:+=/-`, else a new id is made'),
  ];
}

const HEADER_DOCS: Readonly<Record<string, string>> = {
  Location: 'Where the new resource lives; for /oauth/authorize, the redirect back to the client',
  'Set-Cookie': 'The sign-in form’s CSRF nonce: HttpOnly, SameSite=Lax, Path=/oauth/authorize, 10 minutes',
  'Content-Security-Policy': "`frame-ancestors 'none'`, no script, only the page's own inline style",
  'X-Frame-Options': '`DENY`',
  'Referrer-Policy': '`no-referrer`',
  ETag: 'The record version, for If-Match',
  'Retry-After': 'Seconds to wait',
  'WWW-Authenticate': 'RFC 6750 / RFC 7617 challenge',
  Allow: 'The allowed methods',
  'X-Request-Id': "The request id: the caller's, or a new one",
  Vary: '`Accept`: the answer depends on the media types the request prefers',
  'Cache-Control':
    '`no-store` (answers to a request with credentials, the sign-in page); on the JWKS `public, max-age=N`, N at most 300 s and at most security.keys.publish-ahead-seconds',
  'X-Content-Type-Options': '`nosniff`, on every answer: a body is never taken for another type than it says',
};

/**
 * What every route can answer besides its own rows (docs/api.md, Conventions): 405 with `Allow` for another
 * method and 500 for an unexpected failure, in the error body its route declares.
 */
function commonResponses(errorFormat: ErrorFormat): Readonly<Record<string, ReplySpec>> {
  const body = (description: string, headers?: string[]): ReplySpec =>
    errorFormat === 'oauth'
      ? { description, schema: OAuthError, ...(headers ? { headers } : {}) }
      : { description, schema: Problem, type: 'application/problem+json', ...(headers ? { headers } : {}) };
  return {
    405: body('Another method than the route takes', ['Allow']),
    500: body(`\`${errorFormat === 'oauth' ? 'server_error' : 'internal'}\`: ${REPLY_ERRORS.internal.description}`),
  };
}

function responses(route: DescribedRoute): Json {
  const out: Json = {};
  const replies: Readonly<Record<string, ReplySpec>> = {
    ...commonResponses(route.errorFormat),
    ...errorReplies(route, route.doc),
  };
  for (const [status, spec] of Object.entries(replies)) {
    const type = spec.type ?? 'application/json';
    const headers = [...(spec.headers ?? []), 'X-Request-Id', 'X-Content-Type-Options'];
    out[status] = {
      description: spec.description,
      ...(spec.schema
        ? {
            content: {
              [type]: { schema: jsonSchema(spec.schema, 'output') },
              ...(spec.alternative
                ? { [spec.alternative.type]: { schema: jsonSchema(spec.alternative.schema, 'output') } }
                : {}),
            },
          }
        : {}),
      headers: Object.fromEntries(
        headers.map((h) => [h, { description: HEADER_DOCS[h] ?? h, schema: { type: 'string' } }]),
      ),
    };
  }
  return out;
}

/**
 * A bearer route takes an access token however it was had: pasted as it is (`bearer`), or got by
 * signing in through the password grant (`oauth2`), which names the scope the route needs.
 */
const eitherToken = (scopes: readonly string[]): Json[] => [{ bearer: [] }, { oauth2: scopes }];

/** OpenAPI's `security` of a route's access declaration. */
function securityOf(access: Access): Json[] {
  switch (access.kind) {
    case 'public':
      return [];
    case 'client':
      return [{ clientBasic: [] }];
    case 'bearer':
      return eitherToken(access.scope === undefined ? [] : [access.scope]);
    case 'role':
      return eitherToken([]);
    default:
      return access satisfies never;
  }
}

function requestBody(body: BodySpec | undefined): Json {
  return body
    ? { requestBody: { required: body.required, content: { [body.type]: { schema: jsonSchema(body.schema) } } } }
    : {};
}

/** What a route's access asks beyond a token's scope, in words: its role, its client. */
function accessNotes(access: Access): string[] {
  if (access.kind === 'role') return [`Needs the ${access.role} role, checked after the handler has run.`];
  if (access.kind !== 'bearer') return [];
  return [
    ...(access.role === undefined ? [] : [`Needs the ${access.role} role, checked before the handler runs.`]),
    ...(access.firstParty
      ? [
          "Needs a token issued to one of the service's own applications (the `security.jwt.*` client, or a client registered with `consent: implicit`), checked before the handler runs: every other client's token is 403 `insufficient_scope`, whatever its scope.",
        ]
      : []),
  ];
}

function operation({ method, path, access, errorFormat, doc }: DescribedRoute): Json {
  const notes = accessNotes(access);
  return {
    tags: [doc.tag],
    summary: doc.summary,
    ...(notes.length > 0 ? { description: notes.join(' ') } : {}),
    security: securityOf(access),
    operationId: `${method.toLowerCase()}${path.replace(/[^A-Za-z0-9]+(.)?/g, (_m, c: string | undefined) => (c ?? '').toUpperCase())}`,
    parameters: parameters(doc),
    ...requestBody(shown<BodySpec>(doc.body)),
    responses: responses({ method, path, access, errorFormat, doc }),
  };
}

/** Where the client secret typed into the Authorize dialog comes from: never the secret of a configured client. */
function secretHint(secret: DocumentInfo['clientSecret']): string {
  return secret === 'development'
    ? "type the client's secret into `client_secret`: while `security.jwt.client-secret` is unset it is the development secret, `troupe-secret` (the README's Quick start; refused in production)"
    : "type the client's secret into `client_secret`: the one whose BCrypt hash `security.jwt.client-secret` holds, from whoever runs this server";
}

export interface DocumentInfo {
  readonly version: string;
  /** The configured scope names. */
  readonly scopes: readonly string[];
  /** Whether the original client signs in with the code flow too (`src/security/docs-client.ts`). */
  readonly codeFlow: boolean;
  /** Whether the `security.jwt.*` client has the development secret, or one configured. */
  readonly clientSecret: 'development' | 'configured';
}

export function buildDocument(routes: readonly DescribedRoute[], info: DocumentInfo): Json {
  const scopes = Object.fromEntries(info.scopes.map((s) => [s, s]));
  const paths: Record<string, Json> = {};
  for (const r of routes) paths[r.path] = { ...paths[r.path], [r.method.toLowerCase()]: operation(r) };
  return {
    openapi: '3.1.0',
    info: {
      title: 'troupe',
      version: info.version,
      description:
        'Secured service (OAuth 2.0 + JWT), employee service and user-data service, served by supervised actors.',
    },
    servers: [{ url: '/' }],
    tags: [
      { name: 'secured', description: 'Users and roles, the OAuth 2.0 authorization server and the /app resources' },
      { name: 'employee', description: 'Employee records' },
      { name: 'userdata', description: 'Users and their activity' },
      { name: 'operations', description: 'Health, readiness, metrics and this description' },
    ],
    paths,
    components: {
      securitySchemes: {
        // The order of the Authorize dialog: signing in first, then a token pasted as it is.
        oauth2: {
          type: 'oauth2',
          description: `${
            info.codeFlow
              ? "Sign in on this server's sign-in page (the authorization code flow with PKCE), or with a username and password here (the password grant)"
              : 'Sign in with a username and password (the password grant)'
          }. The client id is filled in; ${secretHint(info.clientSecret)}`,
          flows: {
            // Relative: the endpoints of the server that serves this page, whatever the issuer names.
            ...(info.codeFlow
              ? { authorizationCode: { authorizationUrl: '/oauth/authorize', tokenUrl: '/oauth/token', scopes } }
              : {}),
            password: { tokenUrl: '/oauth/token', scopes },
          },
        },
        bearer: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'JWT',
          description: 'An access token you already have, sent as `Authorization: Bearer <token>`',
        },
        clientBasic: { type: 'http', scheme: 'basic', description: 'Client authentication: client id and secret' },
      },
    },
  };
}

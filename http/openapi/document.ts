/** Builds the OpenAPI 3.1 document from the operations' zod schemas (the validators themselves). */
import { z } from 'zod';
import type { Access, ErrorFormat } from '../route-table.ts';
import { OAuthErrorBody as OAuthError, Problem } from './shapes.ts';

export type Tag = 'secured' | 'employee' | 'userdata' | 'operations';
type Json = Record<string, unknown>;

export interface ResponseSpec {
  readonly description: string;
  readonly schema?: z.ZodType;
  /** Defaults to application/json when a schema is given. */
  readonly type?: string;
  readonly headers?: readonly string[];
}

export interface Operation {
  readonly method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  /** OpenAPI form: `/api/employee/{id}`. */
  readonly path: string;
  readonly tag: Tag;
  readonly summary: string;
  readonly query?: z.ZodObject;
  readonly pathParams?: z.ZodObject;
  readonly body?: {
    readonly type: 'application/json' | 'application/x-www-form-urlencoded';
    readonly schema: z.ZodType;
    readonly required?: boolean;
  };
  /** Takes an optional `If-Match: "<version>"` (412 when it names an older version). */
  readonly ifMatch?: boolean;
  readonly responses: Readonly<Record<string, ResponseSpec>>;
}

/** JSON Schema 2020-12 (the dialect of OpenAPI 3.1) of what a request may send. */
function jsonSchema(schema: z.ZodType, io: 'input' | 'output' = 'input'): Json {
  const { $schema: _, ...rest } = z.toJSONSchema(schema, {
    io,
    unrepresentable: 'any',
    target: 'draft-2020-12',
  }) as Json;
  return rest;
}

function parameters(op: Operation): Json[] {
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
    ...list('path', op.pathParams),
    ...list('query', op.query),
    ...(op.ifMatch ? [header('If-Match', 'The version the change is based on, quoted: `"3"`')] : []),
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
  'Cache-Control':
    '`no-store` (answers to a request with credentials, the sign-in page); on the JWKS `public, max-age=N`, N at most 300 s and at most security.keys.publish-ahead-seconds',
  'X-Content-Type-Options': '`nosniff`, on every answer: a body is never taken for another type than it says',
};

/**
 * What every route can answer besides its own rows (docs/api.md, Conventions): 405 with `Allow` for another
 * method and 500 for an unexpected failure, in the error body its route declares.
 */
function commonResponses(errorFormat: ErrorFormat): Readonly<Record<string, ResponseSpec>> {
  const body = (description: string, headers?: string[]): ResponseSpec =>
    errorFormat === 'oauth'
      ? { description, schema: OAuthError, ...(headers ? { headers } : {}) }
      : { description, schema: Problem, type: 'application/problem+json', ...(headers ? { headers } : {}) };
  return {
    405: body('Another method than the route takes', ['Allow']),
    500: body('An unexpected failure; the body names the request id, never a stack'),
  };
}

function responses(op: Operation, errorFormat: ErrorFormat): Json {
  const out: Json = {};
  for (const [status, spec] of Object.entries({ ...commonResponses(errorFormat), ...op.responses })) {
    const type = spec.type ?? 'application/json';
    const headers = [...(spec.headers ?? []), 'X-Request-Id', 'X-Content-Type-Options'];
    out[status] = {
      description: spec.description,
      ...(spec.schema ? { content: { [type]: { schema: jsonSchema(spec.schema, 'output') } } } : {}),
      headers: Object.fromEntries(
        headers.map((h) => [h, { description: HEADER_DOCS[h] ?? h, schema: { type: 'string' } }]),
      ),
    };
  }
  return out;
}

/** OpenAPI's `security` of a route's access declaration. */
function securityOf(access: Access): Json[] {
  switch (access.kind) {
    case 'public':
      return [];
    case 'client':
      return [{ clientBasic: [] }];
    case 'token':
      return [{ bearer: access.scope === undefined ? [] : [access.scope] }];
    case 'role':
      return [{ bearer: [] }];
    default:
      return access satisfies never;
  }
}

function operation(op: Operation, { access, errorFormat }: DeclaredRoute): Json {
  const role =
    access.kind === 'role'
      ? { description: `Needs the ${access.role} role, checked after the handler has run.` }
      : access.kind === 'token' && access.role !== undefined
        ? { description: `Needs the ${access.role} role, checked before the handler runs.` }
        : {};
  return {
    tags: [op.tag],
    summary: op.summary,
    ...role,
    security: securityOf(access),
    operationId: `${op.method}${op.path.replace(/[^A-Za-z0-9]+(.)?/g, (_m, c: string | undefined) => (c ?? '').toUpperCase())}`,
    parameters: parameters(op),
    ...(op.body
      ? {
          requestBody: {
            required: op.body.required ?? true,
            content: { [op.body.type]: { schema: jsonSchema(op.body.schema) } },
          },
        }
      : {}),
    responses: responses(op, errorFormat),
  };
}

/** What the route serving an operation declares: who may run it and the body its errors take. */
export interface DeclaredRoute {
  readonly access: Access;
  readonly errorFormat: ErrorFormat;
}

export interface DocumentInfo {
  readonly version: string;
  readonly issuer: string;
  /** The configured scope names. */
  readonly scopes: readonly string[];
  /** The declaration of the route serving an operation (OpenAPI path form). */
  readonly routeOf: (method: Operation['method'], path: string) => DeclaredRoute;
}

export function buildDocument(ops: readonly Operation[], info: DocumentInfo): Json {
  const paths: Record<string, Json> = {};
  for (const op of ops)
    paths[op.path] = { ...paths[op.path], [op.method]: operation(op, info.routeOf(op.method, op.path)) };
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
        bearer: {
          type: 'oauth2',
          description: 'JWT access token in `Authorization: Bearer`',
          flows: {
            password: {
              tokenUrl: `${info.issuer}/oauth/token`,
              scopes: Object.fromEntries(info.scopes.map((s) => [s, s])),
            },
          },
        },
        clientBasic: { type: 'http', scheme: 'basic', description: 'Client authentication: client id and secret' },
      },
    },
  };
}

/**
 * The replies a route declares (status → description, body schema, headers): its successes and
 * pages; its errors come from its reply codes, access and input (`error-replies.ts`).
 */
import { z } from 'zod';
import * as S from './shapes.ts';

export interface ReplySpec {
  readonly description: string;
  readonly schema?: z.ZodType;
  /** Defaults to application/json when a schema is given. */
  readonly type?: string;
  /**
   * Another media type of the status: the same answer for a request that prefers it (`Accept`),
   * or the access check's OAuth body beside the route's problem.
   */
  readonly alternative?: { readonly type: string; readonly schema: z.ZodType } | undefined;
  readonly headers?: readonly string[];
}

/** Each status a route answers itself, by its HTTP status code. */
export type Replies = Readonly<Record<number, ReplySpec>>;

export const problem = (description: string, headers?: readonly string[]): ReplySpec => ({
  description,
  schema: S.Problem,
  type: 'application/problem+json',
  ...(headers ? { headers } : {}),
});
export const oauthError = (description: string, headers?: readonly string[]): ReplySpec => ({
  description,
  schema: S.OAuthErrorBody,
  ...(headers ? { headers } : {}),
});
export const text = (description: string): ReplySpec => ({ description, schema: z.string(), type: 'text/plain' });
export const done: ReplySpec = { description: 'Done' };

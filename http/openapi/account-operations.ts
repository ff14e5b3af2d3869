/** Account administration's descriptions (/app/admin/users, /app/admin/roles, /app/me/password). */
import { z } from 'zod';
import { CreateRoleInput, OwnPasswordInput } from '../routes/account-logins.ts';
import { CreateAccountInput, ListAccountsInput, PasswordInput, UpdateAccountInput } from '../routes/accounts.ts';
import type { Operation, ResponseSpec } from './document.ts';
import * as S from './shapes.ts';

const problem = (description: string, headers?: string[]): ResponseSpec => ({
  description,
  schema: S.Problem,
  type: 'application/problem+json',
  ...(headers ? { headers } : {}),
});
const oauth = (description: string): ResponseSpec => ({
  description,
  schema: S.OAuthErrorBody,
  headers: ['WWW-Authenticate'],
});
const common = {
  401: oauth(
    'No token (`unauthorized`) or an invalid one (`invalid_token`): revoked, expired, or of a disabled account',
  ),
  403: {
    description: '`insufficient_scope` (the read or write scope is missing) or `access_denied` (not an ADMIN)',
    schema: S.OAuthErrorBody,
  },
  503: problem('Overloaded or a store is unreachable', ['Retry-After']),
} as const;
/** A new password that fails the password policy (src/security/password-policy.ts). */
const PASSWORD_INVALID =
  '`password.invalid` (the password policy: 8 characters to 72 bytes, no control character, not a common password)';
const bodyErrors = {
  400: problem('Invalid input (`validation`, with `errors`), malformed JSON'),
  413: problem('Body too large'),
  415: problem('Not application/json'),
} as const;
const json = (schema: z.ZodType) => ({ type: 'application/json' as const, schema, required: true });
const notFound = problem('`account.not_found`: no account has the id');
const done = { description: 'Done' };
const id = z.object({ id: z.number().int().positive() });
const tag = 'secured' as const;

export const accountOperations: readonly Operation[] = [
  {
    method: 'get',
    path: '/app/admin/users',
    tag,
    summary: 'Accounts with their roles, a page at a time; optionally only usernames starting with a prefix',
    query: ListAccountsInput,
    responses: {
      200: { description: 'A page', schema: S.AccountPage },
      400: problem('Invalid query or cursor (`validation`)'),
      ...common,
    },
  },
  {
    method: 'post',
    path: '/app/admin/users',
    tag,
    summary: 'Create an account',
    body: json(CreateAccountInput),
    responses: {
      201: { description: 'Created', schema: S.AccountSummary, headers: ['Location'] },
      ...bodyErrors,
      400: problem(['`validation`', PASSWORD_INVALID, '`role.unknown`'].join('; ')),
      409: problem('`account.username_taken`'),
      ...common,
    },
  },
  {
    method: 'get',
    path: '/app/admin/users/{id}',
    tag,
    summary: 'An account with its roles',
    pathParams: id,
    responses: { 200: { description: 'The account', schema: S.AccountSummary }, 404: notFound, ...common },
  },
  {
    method: 'patch',
    path: '/app/admin/users/{id}',
    tag,
    summary: "Change an account's names, roles or whether it is enabled; disabling signs it out everywhere",
    pathParams: id,
    body: json(UpdateAccountInput),
    responses: {
      200: { description: 'The account', schema: S.AccountSummary },
      ...bodyErrors,
      400: problem('`validation`; `role.unknown`'),
      404: notFound,
      409: problem('`account.last_admin`: the last enabled ADMIN cannot be disabled or demoted'),
      ...common,
    },
  },
  {
    method: 'put',
    path: '/app/admin/users/{id}/password',
    tag,
    summary: "Set an account's password; the account is signed out everywhere",
    pathParams: id,
    body: json(PasswordInput),
    responses: {
      204: done,
      ...bodyErrors,
      400: problem(['`validation`', PASSWORD_INVALID].join('; ')),
      404: notFound,
      ...common,
    },
  },
  {
    method: 'delete',
    path: '/app/admin/users/{id}',
    tag,
    summary: 'Delete an account; it is signed out everywhere',
    pathParams: id,
    responses: {
      204: done,
      404: notFound,
      409: problem('`account.last_admin`: the last enabled ADMIN cannot be deleted'),
      ...common,
    },
  },
  {
    method: 'get',
    path: '/app/admin/users/{id}/sessions',
    tag,
    summary: 'Where the account is signed in now',
    pathParams: id,
    responses: { 200: { description: 'Logins', schema: z.array(S.Login) }, 404: notFound, ...common },
  },
  {
    method: 'delete',
    path: '/app/admin/users/{id}/sessions',
    tag,
    summary: 'Sign the account out everywhere',
    pathParams: id,
    responses: { 204: done, 404: notFound, ...common },
  },
  {
    method: 'delete',
    path: '/app/admin/users/{id}/sessions/{sid}',
    tag,
    summary: 'Sign the account out of one sign-in',
    pathParams: z.object({ id: z.number().int().positive(), sid: z.string() }),
    responses: {
      204: done,
      404: problem('`account.not_found`, or `login.not_found`: no live login of the account has the sid'),
      ...common,
    },
  },
  {
    method: 'delete',
    path: '/app/admin/users/{id}/lockout',
    tag,
    summary: 'Let the account sign in again after too many failed attempts',
    pathParams: id,
    responses: { 204: done, 404: notFound, ...common },
  },
  {
    method: 'get',
    path: '/app/admin/roles',
    tag,
    summary: 'Every role an account can have',
    responses: { 200: { description: 'Roles', schema: z.array(S.RoleSummary) }, ...common },
  },
  {
    method: 'post',
    path: '/app/admin/roles',
    tag,
    summary: 'Create a role',
    body: json(CreateRoleInput),
    responses: {
      201: { description: 'Created', schema: S.RoleSummary },
      ...bodyErrors,
      409: problem('`role.name_taken`'),
      ...common,
    },
  },
  {
    method: 'put',
    path: '/app/me/password',
    tag,
    summary: 'Change your own password; your other sign-ins end',
    body: json(OwnPasswordInput),
    responses: {
      204: done,
      ...bodyErrors,
      400: problem(['`validation`', PASSWORD_INVALID, '`password.incorrect` (the current one)'].join('; ')),
      401: common[401],
      403: { description: '`access_denied`: security is switched off', schema: S.OAuthErrorBody },
      404: problem('`account.not_found`: the token speaks for no enabled account'),
      429: problem(
        '`too_many_requests`: too many failed password checks of the account or from the address, or another change of the account under way',
        ['Retry-After'],
      ),
      503: common[503],
    },
  },
];

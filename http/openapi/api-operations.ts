/** The employee and user-data services' descriptions, from the zod schemas their routes validate with. */
import { z } from 'zod';
import { objectId } from '../../src/fields.ts';
import { HistoryQuery, RecordActivityInput } from '../routes/activity.ts';
import {
  CreateEmployeeInput,
  EmployeeIdInput,
  SearchEmployeesInput,
  UpdateEmployeeInput,
} from '../routes/employee-input.ts';
import { CreateUserInput, UserIdInput, UpdateUserInput } from '../routes/user.ts';
import type { Operation, ResponseSpec } from './document.ts';
import * as S from './shapes.ts';

const problem = (description: string, headers?: string[]): ResponseSpec => ({
  description,
  schema: S.Problem,
  type: 'application/problem+json',
  ...(headers ? { headers } : {}),
});
const auth = {
  401: { description: 'No or an invalid token', schema: S.OAuthErrorBody, headers: ['WWW-Authenticate'] },
  403: { description: '`insufficient_scope`', schema: S.OAuthErrorBody, headers: ['WWW-Authenticate'] },
} as const;
const common = { ...auth, 503: problem('Overloaded or a store is unreachable', ['Retry-After']) } as const;
const bodyErrors = {
  400: problem('Invalid input (with `errors`) or malformed JSON'),
  413: problem('Body too large'),
  415: problem('Not application/json'),
} as const;
const json = (schema: z.ZodType, required = true) => ({ type: 'application/json' as const, schema, required });
const created = (schema: z.ZodType): ResponseSpec => ({
  description: 'Created',
  schema,
  headers: ['Location', 'ETag'],
});
const notFound = problem('No such record');
const stale = problem('`If-Match` names an older version');

export const employeeOperations: readonly Operation[] = [
  {
    method: 'get',
    path: '/api/employee/create',
    tag: 'employee',
    summary: 'Create an employee from query parameters',
    query: CreateEmployeeInput,
    responses: { 201: created(S.Employee), 400: bodyErrors[400], ...common },
  },
  {
    method: 'post',
    path: '/api/employee/create',
    tag: 'employee',
    summary: 'Create an employee',
    body: json(CreateEmployeeInput),
    responses: { 201: created(S.Employee), ...bodyErrors, ...common },
  },
  {
    method: 'get',
    path: '/api/employee/{id}',
    tag: 'employee',
    summary: 'An employee by id',
    pathParams: z.object({ id: objectId }),
    responses: {
      200: { description: 'The record', schema: S.Employee, headers: ['ETag'] },
      400: bodyErrors[400],
      404: notFound,
      ...common,
    },
  },
  {
    method: 'post',
    path: '/api/employee/search',
    tag: 'employee',
    summary: 'Find employees by part of the name (any case), id or birth dates, a page at a time',
    body: json(SearchEmployeesInput),
    responses: {
      200: { description: 'A page, ordered by name then id', schema: S.EmployeePage },
      ...bodyErrors,
      ...common,
    },
  },
  {
    method: 'put',
    path: '/api/employee/update',
    tag: 'employee',
    summary: "Change an employee's name or date of birth; If-Match keeps a newer version safe",
    query: EmployeeIdInput,
    body: json(UpdateEmployeeInput),
    ifMatch: true,
    responses: {
      200: { description: 'The record, version + 1', schema: S.Employee, headers: ['ETag'] },
      ...bodyErrors,
      404: notFound,
      412: stale,
      ...common,
    },
  },
  {
    method: 'delete',
    path: '/api/employee/delete',
    tag: 'employee',
    summary: 'Delete an employee named in the query or the body',
    query: EmployeeIdInput,
    body: json(EmployeeIdInput, false),
    responses: { 204: { description: 'Deleted' }, ...bodyErrors, 404: notFound, ...common },
  },
];

export const userDataOperations: readonly Operation[] = [
  {
    method: 'post',
    path: '/api/user',
    tag: 'userdata',
    summary: 'Create a user; its activity starts with USER_CREATED',
    body: json(CreateUserInput),
    responses: { 201: created(S.User), ...bodyErrors, 409: problem('The email is taken'), ...common },
  },
  {
    method: 'put',
    path: '/api/user',
    tag: 'userdata',
    summary: "Change a user's name or email; its activity gets USER_UPDATED",
    body: json(UpdateUserInput),
    ifMatch: true,
    responses: {
      200: { description: 'The user', schema: S.User, headers: ['ETag'] },
      ...bodyErrors,
      404: notFound,
      409: problem('The email is taken'),
      412: stale,
      ...common,
    },
  },
  {
    method: 'delete',
    path: '/api/user',
    tag: 'userdata',
    summary: 'Delete a user, named in the query or the body, and its activity',
    query: UserIdInput,
    body: json(UserIdInput, false),
    responses: { 204: { description: 'Deleted' }, ...bodyErrors, 404: notFound, ...common },
  },
  {
    method: 'get',
    path: '/api/users/activity',
    tag: 'userdata',
    summary: 'A user with its activity, newest first',
    query: HistoryQuery,
    responses: {
      200: { description: 'The user and a page of activity', schema: S.UserWithActivity },
      400: bodyErrors[400],
      404: notFound,
      ...common,
    },
  },
  {
    method: 'post',
    path: '/api/users/activity',
    tag: 'userdata',
    summary: "Add an entry to a user's activity",
    body: json(RecordActivityInput),
    responses: { 201: { description: 'The activity', schema: S.Activity }, ...bodyErrors, 404: notFound, ...common },
  },
];

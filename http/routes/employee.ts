import type { Context } from 'koa';
import * as Employee from '../../actors/employee/protocol.ts';
import { ask, type Request } from '../../src/messaging/ask.ts';
import type { Ref } from '../../src/messaging/nact.ts';
import type { Reply } from '../../src/messaging/reply.ts';
import { searchCursor } from '../../src/cursors.ts';
import { jsonBody } from '../middleware/body.ts';
import * as S from '../openapi/shapes.ts';
import { replyValue } from '../problems.ts';
import { changesState, route, type Route } from '../route-table.ts';
import type { ApiRouteDeps } from './api-deps.ts';
import { idFromQueryOrBody, json, optionalJson } from '../validation.ts';
import { sendVersioned } from '../versioning.ts';
import { CreateEmployeeInput, EmployeeIdInput, SearchEmployeesInput, UpdateEmployeeInput } from './employee-input.ts';

export interface EmployeeRouteDeps extends ApiRouteDeps {
  readonly employees: Ref<Employee.Command>;
}

/** The id in the path; built once (zod compiles a schema on its first use, per schema object). */
const IdPath = EmployeeIdInput.required();

function sendCreated(ctx: Context, record: Employee.EmployeeRecord): void {
  ctx.set('Location', `/api/employee/${record.id}`);
  sendVersioned(ctx, record, 201);
}

const tag = 'employee';
const created = { description: 'Created', schema: S.Employee, headers: ['Location', 'ETag'] };

/** The employee service: create, get, search, update and delete employee records through the EmployeeActor. */
export function employeeRoutes(deps: EmployeeRouteDeps): Route[] {
  const { read, write } = deps;
  const parse = jsonBody(deps.maxBodyBytes);
  const call = async <T, C extends Employee.ErrorCode>(build: Request<Employee.Command, Reply<T, C>>): Promise<T> =>
    replyValue(await ask(deps.employees, build, deps.askTimeoutMs));
  /** Both ways to create an employee: from the original service's query, or from a JSON body. */
  const create = { path: '/api/employee/create', access: write, tag, replies: { 201: created } } as const;
  return [
    changesState(
      route(
        {
          ...create,
          method: 'GET',
          summary: 'Create an employee from query parameters',
          query: CreateEmployeeInput,
        },
        async function createFromQuery(ctx, { query }) {
          sendCreated(ctx, await call(Employee.create(query)));
        },
      ),
    ),
    route(
      {
        ...create,
        method: 'POST',
        summary: 'Create an employee',
        parse,
        body: json(CreateEmployeeInput),
      },
      async function createFromBody(ctx, { body }) {
        sendCreated(ctx, await call(Employee.create(body)));
      },
    ),
    route(
      {
        method: 'POST',
        path: '/api/employee/search',
        access: read,
        tag,
        summary: 'Find employees by part of the name (any case), id or birth dates, a page at a time',
        parse,
        body: json(SearchEmployeesInput),
        replies: { 200: { description: 'A page, ordered by name then id', schema: S.EmployeePage } },
      },
      async function search(ctx, { body: { cursor, ...criteria } }) {
        const { items, next } = await call(Employee.search({ ...criteria, after: cursor }));
        ctx.body = { items, nextCursor: next === null ? null : searchCursor(next) };
      },
    ),
    route(
      {
        method: 'PUT',
        path: '/api/employee/update',
        access: write,
        tag,
        summary: "Change an employee's name or date of birth; If-Match keeps a newer version safe",
        parse,
        query: EmployeeIdInput,
        body: json(UpdateEmployeeInput),
        ifMatch: true,
        replies: { 200: { description: 'The record, version + 1', schema: S.Employee, headers: ['ETag'] } },
        errors: ['employee.not_found', 'employee.version_conflict'],
      },
      async function update(ctx, { query, body: { id, ...changes }, ifMatch }) {
        const request = { id: idFromQueryOrBody(query.id, id), changes, expectedVersion: ifMatch };
        sendVersioned(ctx, await call(Employee.update(request)));
      },
    ),
    route(
      {
        method: 'DELETE',
        path: '/api/employee/delete',
        access: write,
        tag,
        summary: 'Delete an employee named in the query or the body',
        parse,
        query: EmployeeIdInput,
        body: optionalJson(EmployeeIdInput),
        replies: { 204: { description: 'Deleted' } },
        errors: ['employee.not_found'],
      },
      async function remove(ctx, { query, body }) {
        await call(Employee.remove({ id: idFromQueryOrBody(query.id, body?.id) }));
        ctx.status = 204;
      },
    ),
    route(
      {
        method: 'GET',
        path: '/api/employee/:id',
        access: read,
        tag,
        summary: 'An employee by id',
        params: IdPath,
        replies: { 200: { description: 'The record', schema: S.Employee, headers: ['ETag'] } },
        errors: ['employee.not_found'],
      },
      // Not async, as the read every client makes most: the ask's own promise and one `then`, where
      // two async functions would add a promise and a suspended frame each.
      function getOne(ctx, { params: { id } }) {
        return ask(deps.employees, Employee.get({ id }), deps.askTimeoutMs).then((reply) =>
          sendVersioned(ctx, replyValue(reply)),
        );
      },
    ),
  ];
}

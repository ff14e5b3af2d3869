import type { Context } from 'koa';
import * as Employee from '../../actors/employee/protocol.ts';
import { ask, type Request } from '../../src/messaging/ask.ts';
import type { Ref } from '../../src/messaging/nact.ts';
import type { Reply } from '../../src/messaging/reply.ts';
import { isObjectId } from '../../src/ids.ts';
import { searchCursor } from '../cursors.ts';
import { jsonBody } from '../middleware/body.ts';
import { replyValue } from '../problems.ts';
import { changesState, route, type Route } from '../route-table.ts';
import type { ApiRouteDeps } from './api-deps.ts';
import { idFromQueryOrBody, jsonObject, queryObject, validate } from '../validation.ts';
import { ifMatchVersion, sendVersioned } from '../versioning.ts';
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

/** The employee service: create, get, search, update and delete employee records through the EmployeeActor. */
export function employeeRoutes(deps: EmployeeRouteDeps): Route[] {
  const { read, write } = deps;
  const body = jsonBody(deps.maxBodyBytes);
  const call = async <T, C extends Employee.ErrorCode>(build: Request<Employee.Command, Reply<T, C>>): Promise<T> =>
    replyValue(await ask(deps.employees, build, deps.askTimeoutMs));
  return [
    changesState(
      route('GET', '/api/employee/create', write, async function createFromQuery(ctx) {
        sendCreated(ctx, await call(Employee.create(validate(CreateEmployeeInput, queryObject(ctx), 'query'))));
      }),
    ),
    route('POST', '/api/employee/create', write, body, async function create(ctx) {
      sendCreated(ctx, await call(Employee.create(validate(CreateEmployeeInput, jsonObject(ctx)))));
    }),
    route('POST', '/api/employee/search', read, body, async function search(ctx) {
      const { cursor, ...criteria } = validate(SearchEmployeesInput, jsonObject(ctx));
      const { items, next } = await call(Employee.search({ ...criteria, after: cursor }));
      ctx.body = { items, nextCursor: next === null ? null : searchCursor(next) };
    }),
    route('PUT', '/api/employee/update', write, body, async function update(ctx) {
      const query = validate(EmployeeIdInput, queryObject(ctx), 'query');
      const { id, ...changes } = validate(UpdateEmployeeInput, jsonObject(ctx));
      const expected = ifMatchVersion(ctx);
      sendVersioned(
        ctx,
        await call(Employee.update({ id: idFromQueryOrBody(query.id, id), changes, expectedVersion: expected })),
      );
    }),
    route('DELETE', '/api/employee/delete', write, body, async function remove(ctx) {
      const query = validate(EmployeeIdInput, queryObject(ctx), 'query');
      const fromBody = ctx.request.body === undefined ? {} : validate(EmployeeIdInput, jsonObject(ctx));
      await call(Employee.remove({ id: idFromQueryOrBody(query.id, fromBody.id) }));
      ctx.status = 204;
    }),
    // Not async, as the read every client makes most: the ask's own promise and one `then`, where
    // two async functions would add a promise and a suspended frame each.
    route('GET', '/api/employee/:id', read, function getOne(ctx) {
      const raw = ctx.params['id'];
      // An id already in its stored form (lower case, as ids are sent) is what the schema would
      // return for it; any other passes through the schema and gets its answer there.
      const id = isObjectId(raw) ? raw : validate(IdPath, { id: raw }, 'path').id;
      return ask(deps.employees, Employee.get({ id }), deps.askTimeoutMs).then((reply) =>
        sendVersioned(ctx, replyValue(reply)),
      );
    }),
  ];
}

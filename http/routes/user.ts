import { z } from 'zod';
import * as User from '../../actors/user/protocol.ts';
import { objectId } from '../../src/fields.ts';
import { ask } from '../../src/messaging/ask.ts';
import type { Ref } from '../../src/messaging/nact.ts';
import { jsonBody } from '../middleware/body.ts';
import * as S from '../openapi/shapes.ts';
import { replyValue } from '../problems.ts';
import { route, type Route } from '../route-table.ts';
import { idFromQueryOrBody, json, optionalJson } from '../validation.ts';
import { sendVersioned } from '../versioning.ts';
import type { ApiRouteDeps } from './api-deps.ts';

export interface UserRouteDeps extends ApiRouteDeps {
  readonly users: Ref<User.Command>;
}

export const CreateUserInput = User.schemas.Post;
/** A Put's fields but its expected version, which comes in `If-Match`. */
export const UpdateUserInput = User.changing(
  z.strictObject({ id: objectId, name: User.fields.name.optional(), email: User.fields.email.optional() }),
);
export const UserIdInput = z.strictObject({ id: objectId.optional() });

const tag = 'userdata';

/** The user-data service's user resource: POST, PUT and DELETE /api/user. */
export function userRoutes(deps: UserRouteDeps): Route[] {
  const parse = jsonBody(deps.maxBodyBytes);
  return [
    route(
      {
        method: 'POST',
        path: '/api/user',
        access: deps.write,
        tag,
        summary: 'Create a user; its activity starts with USER_CREATED',
        parse,
        body: json(CreateUserInput),
        replies: { 201: { description: 'Created', schema: S.User, headers: ['Location', 'ETag'] } },
        errors: ['user.email_taken'],
      },
      async function createUser(ctx, { body }) {
        const user = replyValue(await ask(deps.users, User.post(body), deps.askTimeoutMs));
        ctx.set('Location', `/api/users/activity?userId=${user.id}`);
        sendVersioned(ctx, user, 201);
      },
    ),
    route(
      {
        method: 'PUT',
        path: '/api/user',
        access: deps.write,
        tag,
        summary: "Change a user's name or email; its activity gets USER_UPDATED",
        parse,
        body: json(UpdateUserInput),
        ifMatch: true,
        replies: { 200: { description: 'The user', schema: S.User, headers: ['ETag'] } },
        errors: ['user.not_found', 'user.email_taken', 'user.version_conflict'],
      },
      async function updateUser(ctx, { body, ifMatch }) {
        const put = User.put({ ...body, expectedVersion: ifMatch });
        sendVersioned(ctx, replyValue(await ask(deps.users, put, deps.askTimeoutMs)));
      },
    ),
    route(
      {
        method: 'DELETE',
        path: '/api/user',
        access: deps.write,
        tag,
        summary: 'Delete a user, named in the query or the body, and its activity',
        parse,
        query: UserIdInput,
        body: optionalJson(UserIdInput),
        replies: { 204: { description: 'Deleted' } },
        errors: ['user.not_found'],
      },
      async function deleteUser(ctx, { query, body }) {
        const id = idFromQueryOrBody(query.id, body?.id);
        replyValue(await ask(deps.users, User.delete({ id }), deps.askTimeoutMs));
        ctx.status = 204;
      },
    ),
  ];
}

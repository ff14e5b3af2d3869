import type { Context } from 'koa';
import { z } from 'zod';
import * as User from '../../actors/user/protocol.ts';
import { objectId } from '../../src/fields.ts';
import type { ObjectIdString } from '../../src/ids.ts';
import { ask } from '../../src/messaging/ask.ts';
import type { Ref } from '../../src/messaging/nact.ts';
import { jsonBody } from '../middleware/body.ts';
import { replyValue } from '../problems.ts';
import { route, type Route } from '../route-table.ts';
import { idFromQueryOrBody, jsonObject, queryObject, validate } from '../validation.ts';
import { ifMatchVersion, sendVersioned } from '../versioning.ts';
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

/** DELETE names the user in the query or in a JSON body. */
function idToDelete(ctx: Context): ObjectIdString {
  const fromQuery = validate(UserIdInput, queryObject(ctx), 'query').id;
  const fromBody = ctx.request.body === undefined ? undefined : validate(UserIdInput, jsonObject(ctx)).id;
  return idFromQueryOrBody(fromQuery, fromBody);
}

/** The user-data service's user resource: POST, PUT and DELETE /api/user. */
export function userRoutes(deps: UserRouteDeps): Route[] {
  const body = jsonBody(deps.maxBodyBytes);
  return [
    route('POST', '/api/user', deps.write, body, async function createUser(ctx) {
      const input = validate(CreateUserInput, jsonObject(ctx));
      const user = replyValue(await ask(deps.users, User.post(input), deps.askTimeoutMs));
      ctx.set('Location', `/api/users/activity?userId=${user.id}`);
      sendVersioned(ctx, user, 201);
    }),
    route('PUT', '/api/user', deps.write, body, async function updateUser(ctx) {
      const expectedVersion = ifMatchVersion(ctx);
      const input = validate(UpdateUserInput, jsonObject(ctx));
      sendVersioned(ctx, replyValue(await ask(deps.users, User.put({ ...input, expectedVersion }), deps.askTimeoutMs)));
    }),
    route('DELETE', '/api/user', deps.write, body, async function deleteUser(ctx) {
      replyValue(await ask(deps.users, User.delete({ id: idToDelete(ctx) }), deps.askTimeoutMs));
      ctx.status = 204;
    }),
  ];
}

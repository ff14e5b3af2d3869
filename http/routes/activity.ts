import { z } from 'zod';
import * as Activity from '../../actors/activity/protocol.ts';
import * as User from '../../actors/user/protocol.ts';
import { objectId } from '../../src/fields.ts';
import type { ObjectIdString } from '../../src/ids.ts';
import { ask } from '../../src/messaging/ask.ts';
import type { Ref } from '../../src/messaging/nact.ts';
import { historyCursor, historySeqOf } from '../../src/cursors.ts';
import { jsonBody } from '../middleware/body.ts';
import * as S from '../openapi/shapes.ts';
import { invalidFields, replyValue } from '../problems.ts';
import { route, type Route } from '../route-table.ts';
import { json } from '../validation.ts';
import type { ApiRouteDeps } from './api-deps.ts';

export interface ActivityRouteDeps extends ApiRouteDeps {
  readonly users: Ref<User.Command>;
  readonly activity: Ref<Activity.RouterCommand>;
}

export const HistoryQuery = z.strictObject({
  userId: objectId,
  limit: z
    .string()
    .regex(/^\d{1,3}$/, 'must be a whole number from 1 to 500')
    .transform(Number)
    .pipe(Activity.fields.limit)
    .optional(),
  before: z.string().optional(),
});

export const RecordActivityInput = z.strictObject({
  userId: objectId,
  type: Activity.fields.type,
  detail: Activity.fields.detail.optional(),
});

/** The `before` cursor names a position in this user's history; any other value is a 400. */
function beforeSeq(cursor: string | undefined, userId: ObjectIdString): number | undefined {
  if (cursor === undefined) return undefined;
  const seq = historySeqOf(cursor, userId);
  if (seq !== undefined) return seq;
  throw invalidFields('The query is not valid', {
    field: 'before',
    message: "is not a cursor of this user's activity",
  });
}

const tag = 'userdata';

async function userWithActivity(deps: ActivityRouteDeps, query: z.output<typeof HistoryQuery>): Promise<unknown> {
  const before = beforeSeq(query.before, query.userId);
  const user = replyValue(await ask(deps.users, User.get({ id: query.userId }), deps.askTimeoutMs));
  const page = replyValue(
    await ask(
      deps.activity,
      Activity.history({ userId: query.userId, limit: query.limit ?? 50, before }),
      deps.askTimeoutMs,
    ),
  );
  const { activities, next } = page;
  return { user, activities, nextCursor: next === null ? null : historyCursor(query.userId, next) };
}

/** The user-data service's activity resource: a user with its activity history, and custom activities. */
export function activityRoutes(deps: ActivityRouteDeps): Route[] {
  return [
    route(
      {
        method: 'GET',
        path: '/api/users/activity',
        access: deps.read,
        tag,
        summary: 'A user with its activity, newest first',
        query: HistoryQuery,
        replies: { 200: { description: 'The user and a page of activity', schema: S.UserWithActivity } },
        errors: ['user.not_found'],
      },
      async function readUserActivity(ctx, { query }) {
        ctx.body = await userWithActivity(deps, query);
      },
    ),
    route(
      {
        method: 'POST',
        path: '/api/users/activity',
        access: deps.write,
        tag,
        summary: "Add an entry to a user's activity",
        parse: jsonBody(deps.maxBodyBytes),
        body: json(RecordActivityInput),
        replies: { 201: { description: 'The activity', schema: S.Activity } },
        errors: ['user.not_found'],
      },
      async function recordActivity(ctx, { body }) {
        const activity = replyValue(await ask(deps.activity, Activity.record(body), deps.askTimeoutMs));
        ctx.status = 201;
        ctx.body = activity;
      },
    ),
  ];
}

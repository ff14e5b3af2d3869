/**
 * Actors' replies as HTTP errors (`http/problems.ts`): the table, read through `replyValue`, and
 * its totality over the protocols' error codes, which the type check enforces (the
 * `@ts-expect-error` lines below fail `npm run typecheck` if a partial table ever compiles).
 */
import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type * as Employee from '../../actors/employee/protocol.ts';
import type * as Token from '../../actors/token/protocol.ts';
import { requestFrame } from '../../http/middleware/frame.ts';
import {
  HttpProblem,
  INTERNAL_DETAIL,
  OAuthError,
  REPLY_ERRORS,
  replyValue,
  UNAVAILABLE_DETAIL,
  type ReplyCode,
  type ReplyOverrides,
  type ReplyTable,
} from '../../http/problems.ts';
import { dispatch, mountRoutes, oauthErrors, route } from '../../http/route-table.ts';
import { PUBLIC, type Guards } from '../../http/guards.ts';
import type { AppState } from '../../http/state.ts';
import { createLogger } from '../../src/logger.ts';
import { createMetrics } from '../../src/telemetry/metrics.ts';
import { ActorUnavailableError, AskTimeoutError, MailboxFullError } from '../../src/messaging/ask.ts';
import { fail, ok, type Reply, type SystemCode } from '../../src/messaging/reply.ts';
import { StoreUnavailableError } from '../../src/stores/store-unavailable.ts';

const t = suite('reply codes → HTTP errors');

function thrown(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  throw new Error('nothing was thrown');
}

function problemOf<C extends ReplyCode>(
  reply: Reply<unknown, C>,
  overrides?: ReplyOverrides<C | SystemCode>,
): HttpProblem {
  const error = thrown(() => replyValue(reply, overrides));
  if (!(error instanceof HttpProblem)) throw new Error(`expected an HttpProblem, got ${String(error)}`);
  return error;
}

function oauthErrorOf<C extends ReplyCode>(
  reply: Reply<unknown, C>,
  overrides?: ReplyOverrides<C | SystemCode>,
): OAuthError {
  const error = thrown(() => replyValue(reply, overrides));
  if (!(error instanceof OAuthError)) throw new Error(`expected an OAuthError, got ${String(error)}`);
  return error;
}

t('a successful reply is its value, the same object', () => {
  const value = { id: 1 };
  assert.is(replyValue(ok(value)), value);
});

t("a protocol code is a problem with the table's status, the code and the actor's message", () => {
  const reply: Employee.UpdateReply = fail('employee.version_conflict', 'Employee 1 is at version 2, not 1');
  const problem = problemOf(reply);
  assert.equal(
    [problem.status, problem.code, problem.detail, problem.headers],
    [412, 'employee.version_conflict', 'Employee 1 is at version 2, not 1', {}],
  );
});

t("internal → 500 whose detail hides the actor's message; unavailable → 503 with Retry-After", () => {
  const internal = problemOf(fail('internal', 'TypeError: x is undefined'));
  assert.equal([internal.status, internal.code, internal.detail], [500, 'internal', INTERNAL_DETAIL]);
  const unavailable = problemOf(fail('unavailable', 'A store cannot be reached'));
  assert.equal(
    [unavailable.status, unavailable.code, unavailable.detail, unavailable.headers],
    [503, 'unavailable', UNAVAILABLE_DETAIL, { 'Retry-After': '1' }],
  );
});

t("the token actor's codes are OAuth errors, client.mismatch included", () => {
  const grant: Token.GrantReply = fail('grant.invalid', 'Bad credentials');
  const invalid = oauthErrorOf(grant);
  assert.equal(
    [invalid.status, invalid.error, invalid.description, invalid.headers],
    [400, 'invalid_grant', 'Bad credentials', {}],
  );
  const revoke: Token.RevokeReply = fail('client.mismatch', 'The token was issued to another client');
  const mismatch = oauthErrorOf(revoke);
  assert.equal([mismatch.status, mismatch.error], [400, 'unauthorized_client']);
});

t("an override changes its code's detail and headers only; other codes keep the table's row", () => {
  const overrides = {
    'client.invalid': { detail: 'Bad client credentials', headers: { 'WWW-Authenticate': 'Basic realm="r"' } },
  };
  const client: Token.GrantReply = fail('client.invalid', 'Unknown client');
  const error = oauthErrorOf(client, overrides);
  assert.equal(
    [error.status, error.error, error.description, error.headers],
    [401, 'invalid_client', 'Bad client credentials', { 'WWW-Authenticate': 'Basic realm="r"' }],
  );
  const down: Token.GrantReply = fail('unavailable', 'down');
  assert.is(problemOf(down, overrides).status, 503);
  assert.equal(
    REPLY_ERRORS['client.invalid'],
    { status: 401, oauth: 'invalid_client', description: 'no, malformed or wrong client credentials' },
    'the table itself is unchanged',
  );
});

t('a table without a row for every code of every protocol does not compile', () => {
  const { 'employee.not_found': _dropped, ...partial } = REPLY_ERRORS;
  // @ts-expect-error a missing code would otherwise become a 500
  const missing: ReplyTable = partial;
  // @ts-expect-error a code added to a protocol's ErrorCode needs its row
  const widened: { readonly [C in ReplyCode | 'employee.archived']: { readonly status: number } } = REPLY_ERRORS;
  // @ts-expect-error the token actor's codes need their OAuth error
  const noOAuth: ReplyTable = { ...REPLY_ERRORS, 'grant.invalid': { status: 400 } };
  // @ts-expect-error other codes are problems, never OAuth errors
  const stray: ReplyTable = { ...REPLY_ERRORS, 'user.not_found': { status: 404, oauth: 'invalid_request' } };
  assert.is(Object.keys(missing).length, Object.keys(REPLY_ERRORS).length - 1);
  assert.ok(widened && noOAuth && stray);
});

t('a problem code outside the known ones does not compile', () => {
  // @ts-expect-error a misspelt code is no problem type
  const misspelt = new HttpProblem(400, 'validaton', 'x');
  // @ts-expect-error the recording of activity answers user.not_found, as the user service does
  const retired = new HttpProblem(404, 'activity.user_not_found', 'x');
  assert.is(new HttpProblem(400, 'validation', 'x').code, 'validation');
  assert.ok(misspelt && retired);
});

t.run();

const texts = suite(
  'one text per status: every 503 and every 500 says the same',
  {} as { server: Server; url: string },
);
texts.before(async (c) => {
  const throwing = (path: string, error: () => unknown) =>
    route({ method: 'GET', path, access: PUBLIC, summary: path, tag: 'operations', replies: {} }, async () => {
      throw error();
    });
  const guards: Guards = {
    authenticate: async () => undefined,
    client: async () => {
      throw new Error('no client routes here');
    },
    confidentialClient: async () => {
      throw new Error('no client routes here');
    },
    realm: 'test',
    firstParty: () => false,
  };
  const router = mountRoutes(
    [
      throwing('/store', () => new StoreUnavailableError('db down')),
      throwing('/timeout', () => new AskTimeoutError(5)),
      throwing('/stopped', () => new ActorUnavailableError()),
      throwing('/mailbox', () => new MailboxFullError(1)),
      throwing('/reply-unavailable', () => thrown(() => replyValue(fail('unavailable', 'store gone')))),
      throwing('/crash', () => new TypeError('x is undefined')),
      throwing('/reply-internal', () => thrown(() => replyValue(fail('internal', 'boom')))),
      oauthErrors(throwing('/oauth-crash', () => new TypeError('x is undefined'))),
      oauthErrors(throwing('/oauth-store', () => new StoreUnavailableError('db down'))),
    ],
    guards,
  );
  const app = new Koa<AppState>();
  app.silent = true;
  app.use(requestFrame(createLogger('silent'), createMetrics()));
  app.use(dispatch(router, guards));
  c.server = app.listen(0, '127.0.0.1');
  await once(c.server, 'listening');
  c.url = `http://127.0.0.1:${(c.server.address() as AddressInfo).port}`;
});
texts.after((c) => {
  c.server?.close();
});

const answer = async (url: string): Promise<[number, string, string | null]> => {
  const res = await fetch(url);
  return [res.status, ((await res.json()) as { detail: string }).detail, res.headers.get('retry-after')];
};

texts('a store out of reach, an actor that does not answer, a reply of unavailable → one 503 text', async (c) => {
  for (const path of ['/store', '/timeout', '/stopped', '/mailbox', '/reply-unavailable'])
    assert.equal(await answer(`${c.url}${path}`), [503, UNAVAILABLE_DETAIL, '1'], path);
});

texts("a crash and a reply of internal → one 500 text, never the failure's own", async (c) => {
  for (const path of ['/crash', '/reply-internal'])
    assert.equal(await answer(`${c.url}${path}`), [500, INTERNAL_DETAIL, null], path);
});

texts(
  'a route that answers in OAuth form: server_error and temporarily_unavailable, with the same texts',
  async (c) => {
    const oauth = async (path: string) => {
      const res = await fetch(`${c.url}${path}`);
      const text = await res.text();
      assert.not.match(text, /x is undefined|db down/, path);
      return [res.status, JSON.parse(text) as unknown, res.headers.get('retry-after')];
    };
    assert.equal(await oauth('/oauth-crash'), [
      500,
      { error: 'server_error', error_description: INTERNAL_DETAIL },
      null,
    ]);
    assert.equal(await oauth('/oauth-store'), [
      503,
      { error: 'temporarily_unavailable', error_description: UNAVAILABLE_DETAIL },
      '1',
    ]);
  },
);

texts.run();

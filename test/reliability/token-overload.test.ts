/**
 * Overload of the token endpoint: TokenActor's mailbox only dispatches, and each grant handed off
 * counts against `actors.mailbox-limit` until it is answered. Over real HTTP, past the bound a
 * token request is refused at once (503, `Retry-After: 1`, OAuth `temporarily_unavailable`), never
 * queued; what was admitted is served, and an answer frees its place. Signatures are held at gates
 * (the server's signer wrapped through `startTestServer`), so the counts below are exact.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { clientsFile, SERVICE } from '../helpers/clients.ts';
import { gate, heldSigner, type Gate } from '../helpers/gate.ts';
import { startTestServer, tempDir, type TestServer } from '../helpers/server.ts';
import { basic, postToken, USERS } from '../helpers/tokens.ts';

const BOUND = 4;

interface Ctx {
  server: TestServer;
  /** The next signatures wait at these gates, one each, once they are made; none left: not held. */
  holds: Gate[];
  /** Every gate made, each let go after the tests (a failed one's included), so the server can close. */
  made: Gate[];
}
const ctx = { holds: [], made: [] } as unknown as Ctx;
const t = suite('reliability: token endpoint overload', ctx);

const held = heldSigner(() => ctx.holds.shift());

t.before(async () => {
  ctx.server = await startTestServer(
    { 'actors.mailbox-limit': String(BOUND), 'security.clients-file': clientsFile() },
    tempDir(),
    undefined,
    { signer: held },
  );
});
t.after(async () => {
  for (const hold of ctx.made) hold.release();
  await ctx.server?.close();
});

type Kind = 'client_credentials' | 'password';

interface Answer {
  readonly status: number;
  readonly retryAfter: string | null;
  readonly body: Record<string, unknown>;
}

/** One token request over HTTP: the reporting service's own grant, or john.doe's password login. */
async function grant(kind: Kind): Promise<Answer> {
  const res =
    kind === 'client_credentials'
      ? await postToken(ctx.server.url, { grant_type: kind }, { Authorization: basic(SERVICE.id, SERVICE.secret) })
      : await postToken(ctx.server.url, { grant_type: kind, ...USERS.john });
  return {
    status: res.status,
    retryAfter: res.headers.get('retry-after'),
    body: (await res.json()) as Record<string, unknown>,
  };
}

const kindOf = (i: number): Kind => (i % 2 === 0 ? 'client_credentials' : 'password');

function assertServed(answer: Answer, what: string): void {
  assert.is(answer.status, 200, `${what}: ${JSON.stringify(answer.body)}`);
  assert.type(answer.body['access_token'], 'string', what);
  assert.is(answer.body['token_type'], 'Bearer', what);
}

function assertRefused(answer: Answer, what: string): void {
  assert.is(answer.status, 503, `${what}: ${JSON.stringify(answer.body)}`);
  assert.is(answer.retryAfter, '1', what);
  assert.is(answer.body['error'], 'temporarily_unavailable', what);
}

/** Resolves once `add` has been called `target` times; rejects after `ms` naming `what`. */
function countTo(target: number, ms: number, what: string): { add: () => void; done: Promise<void> } {
  let count = 0;
  let reached = (): void => {};
  let timer: NodeJS.Timeout | undefined;
  const done = new Promise<void>((resolve, reject) => {
    reached = resolve;
    timer = setTimeout(() => reject(new Error(`${what}: ${count} of ${target} after ${ms} ms`)), ms);
  }).finally(() => clearTimeout(timer));
  return {
    add: () => {
      if (++count === target) reached();
    },
    done,
  };
}

/**
 * Sends `count` token requests at once, each signature held at a gate of its own; resolves when
 * each of them is either answered or held: the requests held (admitted) and those answered.
 */
async function sendHeld(count: number) {
  const holds = Array.from({ length: count }, () => gate());
  ctx.holds.push(...holds);
  ctx.made.push(...holds);
  const settled = countTo(count, 10_000, 'requests answered or held');
  let reached = 0;
  for (const hold of holds)
    void hold.reached.then(() => {
      reached++;
      settled.add();
    });
  const answered: Answer[] = [];
  const requests = Array.from({ length: count }, (_, i) =>
    grant(kindOf(i)).then((answer) => {
      answered.push(answer);
      settled.add();
      return answer;
    }),
  );
  await settled.done;
  const answeredWhileHeld = [...answered];
  // The gates no signature took are dropped: later signatures are not held.
  ctx.holds.splice(0);
  return {
    reached,
    answeredWhileHeld,
    /** Lets every held signature go on; resolves with every request's answer. */
    async release(): Promise<Answer[]> {
      for (const hold of holds) hold.release();
      return Promise.all(requests);
    },
  };
}

/**
 * Every place is free: `BOUND` requests are admitted and held together, the next is refused at
 * once, and once they are let go each is served.
 */
async function assertBoundFree(): Promise<void> {
  const full = await sendHeld(BOUND);
  assert.is(full.reached, BOUND, 'every place is free');
  assert.is(full.answeredWhileHeld.length, 0);
  assertRefused(await grant('client_credentials'), 'one past the bound');
  for (const answer of await full.release()) assertServed(answer, 'admitted');
}

t('a burst of 40 at a bound of 4: exactly 4 admitted and held, 36 refused at once, then all served', async () => {
  // Each client's secret checked once (later checks find it by its hash), so the burst meets the bound only.
  assertServed(await grant('client_credentials'), 'before the burst');
  assertServed(await grant('password'), 'before the burst');

  const burst = await sendHeld(40);
  assert.is(burst.reached, BOUND, 'admitted: exactly the bound, each held at its signature');
  assert.is(burst.answeredWhileHeld.length, 40 - BOUND, 'the rest answered while those are held');
  burst.answeredWhileHeld.forEach((answer, i) => assertRefused(answer, `refused #${i}`));

  const answers = await burst.release();
  const served = answers.filter((answer) => answer.status === 200);
  assert.is(served.length, BOUND);
  served.forEach((answer, i) => assertServed(answer, `admitted #${i}`));
  assert.is(answers.filter((answer) => answer.status === 503).length, 40 - BOUND);

  // The answers freed their places: a request is served, and the whole bound is free again.
  assertServed(await grant('password'), 'after the burst');
  await assertBoundFree();
});

/** Reads the value of the series `name` whose labels include `labels`, 0 when there is none. */
function series(metrics: string, name: string, labels: Record<string, string>): number {
  const wanted = Object.entries(labels).map(([key, value]) => `${key}="${value}"`);
  const line = metrics
    .split('\n')
    .find((l) => l.startsWith(`${name}{`) && wanted.every((label) => l.slice(0, l.indexOf('}')).includes(label)));
  return line === undefined ? 0 : Number(line.slice(line.lastIndexOf(' ') + 1));
}

const scrape = async (): Promise<string> => (await fetch(`${ctx.server.url}/metrics`)).text();

const tokenRequests = (metrics: string, status: number): number =>
  series(metrics, 'http_requests_total', { method: 'POST', route: '/oauth/token', status: String(status) });

t('300 requests from 20 clients at once: each 200 or 503 + Retry-After; afterwards all is well', async () => {
  const before = await scrape();
  const statuses = new Map<number, number>();
  const client = async (c: number): Promise<void> => {
    for (let round = 0; round < 15; round++) {
      // One request in four a password login (BCrypt beside the mailbox), the rest the client's own grant.
      const answer = await grant((c + round) % 4 === 0 ? 'password' : 'client_credentials');
      statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
      if (answer.status === 200) assertServed(answer, `client ${c}, round ${round}`);
      else assertRefused(answer, `client ${c}, round ${round}`);
    }
  };
  await Promise.all(Array.from({ length: 20 }, (_, c) => client(c)));
  const served = statuses.get(200) ?? 0;
  const refused = statuses.get(503) ?? 0;
  assert.is(served + refused, 300, `statuses ${JSON.stringify([...statuses])}`);
  assert.ok(served > 0, 'some were served');

  assertServed(await grant('client_credentials'), 'after the load');
  const after = await scrape();
  // The server counted what the clients saw, the request after the load included; no grant failed.
  assert.is(tokenRequests(after, 200) - tokenRequests(before, 200), served + 1);
  assert.is(tokenRequests(after, 503) - tokenRequests(before, 503), refused);
  assert.is(tokenRequests(after, 500), 0);
  const failed = { actor: 'token', outcome: 'failed' };
  assert.is(series(after, 'actor_messages_total', failed), series(before, 'actor_messages_total', failed));
  assert.is(series(after, 'actor_mailbox_depth', { actor: 'token' }), 0);
  // No work is left beside the mailbox: the whole bound is free.
  await assertBoundFree();
});

t.run();

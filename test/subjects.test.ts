/**
 * One namespace of subjects: no account is named like a registered client (compared in canonical
 * form), so an account's `sub` is never a client's. Account creation refuses the clash
 * (`POST /app/admin/users` → 409 `account.username_reserved`), and so does the start: a registered
 * client whose id is a stored account's username, or an initial-data account's, stops it with one
 * line, and the initial data's account is never written.
 */
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTroupe } from '../src/composition/troupe.ts';
import { ConfigError, loadConfig } from '../src/config.ts';
import { createLogger } from '../src/logger.ts';
import { openSqliteStores } from '../src/stores/stores.sqlite.ts';
import { CLIENTS, clientsFile, PARTNER, SERVICE } from './helpers/clients.ts';
import { serverSuite, startTestServer, tempDir } from './helpers/server.ts';
import { bearer, CLIENT_ID, login, USERS } from './helpers/tokens.ts';
import { decodeJwt } from 'jose';

const http = serverSuite('POST /app/admin/users › a username that is a client id', {
  'security.clients-file': clientsFile(CLIENTS),
});

http("a registered client's id, in any case or width → 409 account.username_reserved; nothing created", async (c) => {
  const admin = (await login(c.server.url, USERS.admin)).access_token;
  const create = (username: string) =>
    fetch(`${c.server.url}/app/admin/users`, {
      method: 'POST',
      headers: { ...bearer(admin), 'Content-Type': 'application/json' },
      body: JSON.stringify({ username, password: 'a-fine-password-3', roles: ['USER'] }),
    });
  for (const username of [PARTNER.id, PARTNER.id.toUpperCase(), SERVICE.id, CLIENT_ID, 'ｐａｒｔｎｅｒ-ａｐｐ']) {
    const res = await create(username);
    assert.is(res.status, 409, username);
    const problem = (await res.json()) as { type: string; detail: string };
    assert.is(problem.type, 'urn:problem:troupe:account.username_reserved', username);
    assert.is(problem.detail, "The username is a registered client's id");
  }
  const listed = await fetch(`${c.server.url}/app/admin/users?limit=100`, { headers: bearer(admin) });
  const names = ((await listed.json()) as { items: { username: string }[] }).items.map((a) => a.username);
  assert.equal(names, [USERS.admin.username, USERS.john.username]);
});

http.run();

const start = suite('the start › a client whose id is an account username');

/** What starting gives: undefined when it started (then closed), else the error. */
async function startOf(properties: Record<string, string>, dataDir: string): Promise<unknown> {
  const config = loadConfig({
    properties: { 'data.dir': dataDir, 'server.port': '0', 'logging.level': 'silent', ...properties },
  });
  return startTroupe(config, createLogger('silent')).then(
    async (troupe) => {
      await troupe.close();
      return undefined;
    },
    (error: unknown) => error,
  );
}

const oneLine = (refusal: unknown): string => {
  assert.instance(refusal, ConfigError);
  const message = (refusal as ConfigError).message;
  assert.not.match(message, /\n/);
  return message;
};

start('an account in the store: refused, naming client and account; starts once the client is renamed', async () => {
  const server = await startTestServer();
  try {
    const admin = (await login(server.url, USERS.admin)).access_token;
    const made = await fetch(`${server.url}/app/admin/users`, {
      method: 'POST',
      headers: { ...bearer(admin), 'Content-Type': 'application/json' },
      body: JSON.stringify({ username: 'nightly', password: 'a-fine-password-4', roles: ['USER'] }),
    });
    assert.is(made.status, 201);
    await server.stop();
    // The same data directory, now with a client registered as `Nightly`.
    const clashing = CLIENTS.map((c) => (c.client_id === SERVICE.id ? { ...c, client_id: 'Nightly' } : c));
    const message = oneLine(await startOf({ 'security.clients-file': clientsFile(clashing) }, server.dataDir));
    assert.match(
      message,
      /client "Nightly" \(security\.clients-file\) has the subject of account "nightly" \(in the store\)/,
    );
    assert.is(await startOf({ 'security.clients-file': clientsFile(CLIENTS) }, server.dataDir), undefined);
    // The security.jwt client is a client too.
    const jwt = oneLine(await startOf({ 'security.jwt.client-id': 'John.Doe' }, server.dataDir));
    assert.match(jwt, /client "John\.Doe" \(security\.jwt\.client-id\) has the subject of account "john\.doe"/);
  } finally {
    await server.close();
  }
});

start('an account of the initial data: refused before it is seeded', async () => {
  const dir = tempDir();
  try {
    const initial = join(dir, 'initial-data.json');
    writeFileSync(
      initial,
      JSON.stringify({
        roles: [{ roleName: 'ADMIN' }],
        users: [
          {
            username: 'admin',
            password: '$2b$10$ou0V7wzSMMLBjrgg7HZmN.2c1W8VDzb41pZwpwGZFDFcWOOQ1NkEK',
            roles: ['ADMIN'],
          },
          {
            username: 'Reporting-Service',
            password: '$2b$10$ou0V7wzSMMLBjrgg7HZmN.2c1W8VDzb41pZwpwGZFDFcWOOQ1NkEK',
            roles: ['ADMIN'],
          },
        ],
      }),
    );
    const data = join(dir, 'data');
    const message = oneLine(
      await startOf({ 'app.initial-data': initial, 'security.clients-file': clientsFile(CLIENTS) }, data),
    );
    assert.match(
      message,
      /client "reporting-service" \(security\.clients-file\) has the subject of account "Reporting-Service" \(app\.initial-data\)/,
    );
    const stores = openSqliteStores(data, { synchronous: 'NORMAL', openTimeoutMs: 5000 });
    try {
      assert.equal(await stores.accounts.listAll(), [], 'nothing seeded');
    } finally {
      await stores.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

start("a client whose id has the form of an account's subject: refused, naming it and where", async () => {
  const dir = tempDir();
  try {
    const clashing = CLIENTS.map((c) => (c.client_id === SERVICE.id ? { ...c, client_id: 'Account:7' } : c));
    const file = oneLine(await startOf({ 'security.clients-file': clientsFile(clashing) }, join(dir, 'a')));
    assert.match(file, /client "Account:7" \(security\.clients-file\) has the form of an account's subject/);
    const jwt = oneLine(await startOf({ 'security.jwt.client-id': 'account:1' }, join(dir, 'b')));
    assert.match(jwt, /client "account:1" \(security\.jwt\.client-id\) has the form of an account's subject/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

start.run();

const subject = suite("an account's subject: from its id, never reassigned");

subject('a username deleted and created again is another subject; the username rides in user_name', async () => {
  const server = await startTestServer();
  try {
    const admin = (await login(server.url, USERS.admin)).access_token;
    const create = async (): Promise<number> => {
      const made = await fetch(`${server.url}/app/admin/users`, {
        method: 'POST',
        headers: { ...bearer(admin), 'Content-Type': 'application/json' },
        body: JSON.stringify({ username: 'ada.l', password: 'a-fine-password-5', roles: ['USER'] }),
      });
      assert.is(made.status, 201);
      return ((await made.json()) as { id: number }).id;
    };
    const claimsOf = async () =>
      decodeJwt((await login(server.url, { username: 'ada.l', password: 'a-fine-password-5' })).access_token);
    const first = await create();
    const before = await claimsOf();
    assert.is(before.sub, `account:${first}`);
    assert.is(before['user_name'], 'ada.l');
    const gone = await fetch(`${server.url}/app/admin/users/${first}`, { method: 'DELETE', headers: bearer(admin) });
    assert.is(gone.status, 204);
    const second = await create();
    const after = await claimsOf();
    assert.is(after.sub, `account:${second}`);
    assert.is.not(after.sub, before.sub, 'the new account is never the old subject');
    assert.is(after['user_name'], 'ada.l');
    // The resource server reads the username from user_name: the new account's token works as its own.
    const me = await fetch(`${server.url}/app/user`, {
      headers: bearer((await login(server.url, { username: 'ada.l', password: 'a-fine-password-5' })).access_token),
    });
    assert.is(await me.text(), 'Hello ada.l, you are a user.');
  } finally {
    await server.close();
  }
});

subject.run();

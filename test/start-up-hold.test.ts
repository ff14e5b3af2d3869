/**
 * What arrives while the server starts (src/composition/troupe.ts, `heldUntilOpen`): the ports
 * listen before the core is built, and a request that comes then is held, unanswered, until the
 * application is ready; then it is answered, body and all, with those pipelined behind it in order.
 */
import { once } from 'node:events';
import type { Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestServer, type TestServer } from './helpers/server.ts';
import { basic, USERS } from './helpers/tokens.ts';

const form = `grant_type=password&username=${USERS.john.username}&password=${USERS.john.password}`;
const REQUESTS = [
  'GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n',
  `POST /oauth/token HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: ${basic()}\r\n` +
    `Content-Type: application/x-www-form-urlencoded\r\nContent-Length: ${form.length}\r\n\r\n${form}`,
  'GET /app/listAll HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n',
];

/** One turn of the event loop, its poll phase included. */
const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

test('requests sent while the server starts are held until it is ready, then answered in order', async () => {
  let atGate: (servers: readonly Server[]) => void = () => {};
  const reached = new Promise<readonly Server[]>((resolve) => (atGate = resolve));
  let release: () => void = () => {};
  const gate = new Promise<void>((resolve) => (release = resolve));
  const starting = startTestServer({}, undefined, undefined, {
    beforeOpen: (servers) => {
      atGate(servers);
      return gate;
    },
  });
  let started: TestServer | undefined;
  try {
    const [server] = await reached;
    if (!server) throw new Error('no server at the gate');
    let arrived = 0;
    server.on('request', () => arrived++);
    const client = connect((server.address() as AddressInfo).port, '127.0.0.1');
    let received = '';
    client.setEncoding('utf8');
    client.on('data', (chunk: string) => (received += chunk));
    client.write(REQUESTS.join(''));
    while (arrived < REQUESTS.length) await once(server, 'request');
    for (let i = 0; i < 3; i++) await turn();
    assert.is(received, '', 'nothing answered while the server starts');

    release();
    started = await starting;
    await once(client, 'close');
    const statuses = [...received.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((m) => Number(m[1]));
    assert.equal(statuses, [200, 200, 401], received);
    assert.match(received, /"access_token":"ey/, 'the held body was read once the server was ready');
  } finally {
    release();
    await (started ?? (await starting)).close();
  }
});

test.run();

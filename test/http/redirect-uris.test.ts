/** Registered redirect URIs against a real server: what start-up refuses, and where a code goes. */
import { rmSync } from 'node:fs';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ConfigError } from '../../src/config.ts';
import { authorizeUrl, openForm, pkce, redirectedTo, submit } from '../helpers/authorize.ts';
import { clientsFile } from '../helpers/clients.ts';
import { startTestServer, tempDir, type TestServer } from '../helpers/server.ts';
import { postToken } from '../helpers/tokens.ts';

const NATIVE = { id: 'native-app', redirect: 'com.example.app:/callback' } as const;
const LOOPBACK = { id: 'desktop-app', redirect: 'http://[::1]:8400/callback' } as const;
const publicClient = (id: string, redirect: string) => ({
  client_id: id,
  token_endpoint_auth_method: 'none',
  redirect_uris: [redirect],
  scope: 'read',
  consent: 'implicit',
});

const ctx = {} as { server: TestServer };
const t = suite('registered redirect URIs', ctx);
t.after(async () => ctx.server?.close());

t('start-up refuses a javascript:, data:, fragment or non-loopback http: redirect URI, in one line', async () => {
  const refusals: [string, RegExp][] = [
    ['javascript:alert(document.cookie)', /must not use the javascript: scheme/],
    ['data:text/html,<script>alert(1)</script>', /must not use the data: scheme/],
    ['https://app.example/callback#frag', /without a fragment/],
    ['http://app.example/callback', /http: is for a loopback host only/],
    ['myapp:/callback', /private-use scheme in reverse domain name form/],
  ];
  for (const [uri, why] of refusals) {
    const dataDir = tempDir();
    try {
      const server = await startTestServer({ 'security.clients-file': clientsFile([publicClient('x', uri)]) }, dataDir);
      await server.close();
      assert.unreachable(`${uri} was accepted`);
    } catch (error) {
      assert.instance(error, ConfigError, uri);
      const message = (error as Error).message;
      assert.match(message, /^Invalid configuration: .*security\.clients-file: \[0\]\.redirect_uris\[0\]: /);
      assert.match(message, why);
      assert.not.match(message, /\n/);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }
});

t('a private-use scheme and an http: loopback URI are registered, and the code goes back to them', async () => {
  ctx.server = await startTestServer({
    'security.clients-file': clientsFile([
      publicClient(NATIVE.id, NATIVE.redirect),
      publicClient(LOOPBACK.id, LOOPBACK.redirect),
    ]),
  });
  for (const client of [NATIVE, LOOPBACK]) {
    const { challenge, verifier } = pkce();
    const form = await openForm(
      authorizeUrl(ctx.server.url, {
        response_type: 'code',
        client_id: client.id,
        redirect_uri: client.redirect,
        code_challenge: challenge,
        code_challenge_method: 'S256',
        state: 's',
      }),
    );
    assert.is(form.status, 200, client.redirect);
    const res = await submit(ctx.server.url, form);
    assert.is(res.status, 303);
    assert.ok(res.headers.get('location')?.startsWith(`${client.redirect}?code=`), res.headers.get('location') ?? '');
    const code = redirectedTo(res).searchParams.get('code') ?? '';
    const token = await postToken(
      ctx.server.url,
      {
        grant_type: 'authorization_code',
        code,
        redirect_uri: client.redirect,
        code_verifier: verifier,
        client_id: client.id,
      },
      {},
    );
    assert.is(token.status, 200, client.redirect);
  }
});

t.run();

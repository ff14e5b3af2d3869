import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { CLIENTS, clientsFile, SERVICE } from '../helpers/clients.ts';

const t = suite('security.clients-file');

const load = (clients: readonly unknown[]) =>
  loadConfig({ properties: { 'security.clients-file': clientsFile(clients) } });

const confidential = CLIENTS[0] as Record<string, unknown>;
const publicClient = CLIENTS[2] as Record<string, unknown>;

function refused(clients: readonly unknown[], message: RegExp): void {
  try {
    load(clients);
  } catch (error) {
    assert.instance(error, ConfigError);
    assert.match((error as Error).message, /^Invalid configuration: .*security\.clients-file: /);
    assert.match((error as Error).message, message);
    assert.not.ok((error as Error).message.includes(String(confidential['client_secret'])), 'no hash is echoed');
    assert.not.ok((error as Error).message.includes('reporting-secret'), 'no secret is echoed');
    return;
  }
  assert.unreachable('the clients file was accepted');
}

t('unset → no clients besides the original one', () => {
  assert.equal(loadConfig({}).security.clientsFile, []);
});

t('RFC 7591 fields are read into the registrations', () => {
  const [service, web, spa] = load(CLIENTS).security.clientsFile;
  assert.is(service?.clientId, SERVICE.id);
  assert.is(service?.authMethod, 'client_secret_basic');
  assert.equal(service?.grantTypes, ['client_credentials']);
  assert.equal(web?.scopes, ['read', 'write']);
  assert.is(spa?.secretHash, undefined);
  assert.is(spa?.authMethod, 'none');
});

t('consent: explicit unless the entry says implicit; any other value is refused', () => {
  const [service, web] = load([{ ...confidential }, { ...publicClient, consent: 'implicit' }]).security.clientsFile;
  assert.is(service?.consent, 'explicit');
  assert.is(web?.consent, 'implicit');
  refused([{ ...publicClient, consent: 'never' }], /\[0\]\.consent: /);
});

t('pkce_required: true unless a confidential entry says false; false on a public client is refused', () => {
  const [service, web] = load([{ ...confidential, pkce_required: false }, { ...publicClient }]).security.clientsFile;
  assert.is(service?.pkceRequired, false);
  assert.is(web?.pkceRequired, true);
  assert.is(load([{ ...publicClient, pkce_required: true }]).security.clientsFile[0]?.pkceRequired, true);
  refused(
    [{ ...publicClient, pkce_required: false }],
    /\[0\]\.pkce_required: a public client \(none\) always uses PKCE/,
  );
  refused([{ ...confidential, pkce_required: 'false' }], /\[0\]\.pkce_required: /);
});

t('an entry naming no token_endpoint_auth_method registers none: either secret method is taken', () => {
  const [, , , console] = load(CLIENTS).security.clientsFile;
  assert.is(console?.authMethod, undefined);
  assert.ok(console?.secretHash);
});

t('a plain-text secret is refused, naming the entry and field', () => {
  refused([{ ...confidential, client_secret: 'reporting-secret' }], /\[0\]\.client_secret: must be a BCrypt hash/);
});

t('a confidential client without a secret is refused', () => {
  const { client_secret: _, ...rest } = confidential;
  refused([rest], /\[0\]\.client_secret: is required/);
});

t('a public client with client_credentials or password is refused', () => {
  refused(
    [{ ...publicClient, grant_types: ['authorization_code', 'client_credentials'] }],
    /\[0\]\.grant_types: a public client may not use client_credentials/,
  );
  refused([{ ...publicClient, grant_types: ['password'] }], /a public client may not use password/);
});

t('a public client with a secret is refused', () => {
  refused([{ ...publicClient, client_secret: confidential['client_secret'] }], /\[0\]\.client_secret: a public client/);
});

t('a relative or fragment-bearing redirect URI is refused', () => {
  refused([{ ...publicClient, redirect_uris: ['/callback'] }], /\[0\]\.redirect_uris\[0\]: must be an absolute URI/);
  refused(
    [{ ...publicClient, redirect_uris: ['https://app.example/cb#x'] }],
    /redirect_uris\[0\]: must be an absolute URI without a fragment/,
  );
});

t('a javascript:, data: or other non-navigable redirect URI is refused', () => {
  for (const uri of [
    'javascript:alert(1)',
    'JavaScript://127.0.0.1/%0aalert(1)',
    'data:text/html,<p>hi</p>',
    'vbscript:x',
    'file:///etc/passwd',
    'blob:https://app.example/1',
    'about:blank',
  ])
    refused([{ ...publicClient, redirect_uris: [uri] }], /\[0\]\.redirect_uris\[0\]: must not use the [a-z]+: scheme/);
});

t('a redirect URI with a space or control character a parser would drop is refused', () => {
  for (const uri of [
    ' https://app.example/cb',
    'java\tscript:alert(1)',
    'https://app.example/c b',
    'https://app.example/cb\n',
  ])
    refused([{ ...publicClient, redirect_uris: [uri] }], /\[0\]\.redirect_uris\[0\]: must be an absolute URI/);
});

t('http: to a host other than loopback is refused; 127.0.0.1, [::1] and localhost are taken', () => {
  for (const uri of [
    'http://app.example/cb',
    'http://127.0.0.1.nip.io/cb',
    'http://localhost.example/cb',
    'http://10.0.0.1/cb',
  ])
    refused(
      [{ ...publicClient, redirect_uris: [uri] }],
      /\[0\]\.redirect_uris\[0\]: http: is for a loopback host only/,
    );
  const loopback = ['http://127.0.0.1:8400/cb', 'http://[::1]:8400/cb', 'http://localhost/cb', 'HTTP://LOCALHOST:1/cb'];
  const [spa] = load([{ ...publicClient, redirect_uris: loopback }]).security.clientsFile;
  assert.equal(spa?.redirectUris, loopback, 'kept exactly as written');
});

t('a private-use scheme must be a reverse domain name (RFC 8252 §7.1); https: is taken', () => {
  for (const uri of ['myapp:/callback', 'ws://127.0.0.1/cb', 'mailto:x@app.example', 'urn:x:y'])
    refused(
      [{ ...publicClient, redirect_uris: [uri] }],
      /\[0\]\.redirect_uris\[0\]: must be https:, http: to a loopback host, or a private-use scheme/,
    );
  refused([{ ...publicClient, redirect_uris: ['https:app.example/cb'] }], /must name a host after https:\/\//);
  const taken = ['com.example.app:/callback', 'com.example.app://callback', 'https://app.example/cb?x=1'];
  const [spa] = load([{ ...publicClient, redirect_uris: taken }]).security.clientsFile;
  assert.equal(spa?.redirectUris, taken);
});

t('every bad redirect URI is named, in one line', () => {
  try {
    load([
      { ...publicClient, redirect_uris: ['https://app.example/cb', 'javascript:alert(1)'] },
      { ...publicClient, client_id: 'b', redirect_uris: ['http://app.example/cb'] },
    ]);
    assert.unreachable('accepted');
  } catch (error) {
    const message = (error as Error).message;
    assert.not.match(message, /\n/);
    assert.match(message, /\[0\]\.redirect_uris\[1\]: must not use the javascript: scheme/);
    assert.match(message, /\[1\]\.redirect_uris\[0\]: http: is for a loopback host only/);
    assert.not.match(message, /alert|app\.example/, 'no value from the file is echoed');
  }
});

t("post_logout_redirect_uris are read, held to the redirect URIs' rules; none when left out", () => {
  const uris = ['https://app.example/signed-out', 'http://127.0.0.1:9/bye', 'com.example.app:/bye'];
  const [spa, other] = load([
    { ...publicClient, post_logout_redirect_uris: uris },
    { ...publicClient, client_id: 'b' },
  ]).security.clientsFile;
  assert.equal(spa?.postLogoutRedirectUris, uris);
  assert.equal(other?.postLogoutRedirectUris, []);
  refused(
    [{ ...publicClient, post_logout_redirect_uris: ['https://app.example/ok', 'javascript:alert(1)'] }],
    /\[0\]\.post_logout_redirect_uris\[1\]: must not use the javascript: scheme/,
  );
  refused(
    [{ ...publicClient, post_logout_redirect_uris: ['http://app.example/bye'] }],
    /\[0\]\.post_logout_redirect_uris\[0\]: http: is for a loopback host only/,
  );
  refused(
    [{ ...publicClient, post_logout_redirect_uris: ['/bye#x'] }],
    /post_logout_redirect_uris\[0\]: must be an absolute URI/,
  );
  refused([{ ...publicClient, post_logout_redirect_uris: 'https://app.example/bye' }], /post_logout_redirect_uris/);
});

t('authorization_code without a redirect URI is refused', () => {
  refused([{ ...publicClient, redirect_uris: [] }], /\[0\]\.redirect_uris: authorization_code needs a redirect URI/);
});

t('an unknown grant, a field of no meaning, a duplicate id, bad JSON are refused', () => {
  refused([{ ...confidential, grant_types: ['implicit'] }], /\[0\]\.grant_types\[0\]/);
  refused([{ ...confidential, client_secret_expires_at: 0 }], /client_secret_expires_at/);
  refused([confidential, confidential], /\[1\]\.client_id: is registered twice/);
  refused([{ ...confidential, client_id: 'troupe-client' }], /client_id troupe-client is security\.jwt\.client-id's/);
  try {
    loadConfig({ properties: { 'security.clients-file': '/nonexistent/clients.json' } });
    assert.unreachable('accepted');
  } catch (error) {
    assert.match(
      (error as Error).message,
      /security\.clients-file: cannot read \/nonexistent\/clients\.json \(ENOENT\)/,
    );
  }
});

t("an unknown field is named with the field it likely meant; zod's own words never show", () => {
  const { grant_types: grants, ...rest } = confidential;
  refused(
    [{ ...rest, grant_type: grants }],
    /\[0\]\.grant_type: is not a field of a client; did you mean grant_types\?/,
  );
  refused(
    [{ ...confidential, redirect_uri: 'https://a.example/cb' }],
    /\[0\]\.redirect_uri: .*did you mean redirect_uris\?/,
  );
  refused(
    [{ ...confidential, client_secret_expires_at: 0 }],
    /client_secret_expires_at: is not a field of a client \(got /,
  );
  refused(
    [{ ...confidential, grant_types: ['implicit'] }],
    /\[0\]\.grant_types\[0\]: must be one of authorization_code, /,
  );
  refused([{ ...confidential, consent: 1 }], /\[0\]\.consent: must be one of implicit, explicit/);
  refused([{ ...confidential, pkce_required: 'no' }], /\[0\]\.pkce_required: must be a boolean/);
});

t.run();

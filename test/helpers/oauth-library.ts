/**
 * A troupe whose metadata a standard client library (openid-client) discovers, with the test
 * clients registered and the web client's redirect URI on a local target.
 */
import * as client from 'openid-client';
import { CLIENTS, clientsFile, SERVICE, WEB } from './clients.ts';
import { closedPort } from './ports.ts';
import { startRedirectTarget, type RedirectTarget } from './redirect-target.ts';
import { startTestServer, type TestServer } from './server.ts';

export interface LibrarySetup {
  readonly server: TestServer;
  readonly target: RedirectTarget;
  /** The web client (client_secret_post, authorization_code + refresh_token) as openid-client sees it. */
  readonly web: client.Configuration;
  /** The reporting service (client_secret_basic, client_credentials). */
  readonly service: client.Configuration;
  close(): Promise<void>;
}

export interface LibrarySetupOptions {
  /** Configuration beside the issuer and the clients file (a theme, a product name…). */
  readonly properties?: Record<string, string>;
  /** Fields of the web client's entry in the clients file (e.g. `consent`). */
  readonly web?: Record<string, unknown>;
}

export async function startLibrarySetup(setup: LibrarySetupOptions = {}): Promise<LibrarySetup> {
  const target = await startRedirectTarget();
  const clients = CLIENTS.map((c) =>
    c.client_id === WEB.id ? { ...c, redirect_uris: [target.callback], ...setup.web } : c,
  );
  // The issuer is the URL the library discovers from, so the port is chosen first.
  const port = await closedPort();
  const server = await startTestServer({
    'server.port': String(port),
    'security.jwt.issuer': `http://127.0.0.1:${port}`,
    'security.clients-file': clientsFile(clients),
    ...setup.properties,
  });
  const options = { algorithm: 'oauth2' as const, execute: [client.allowInsecureRequests] };
  const issuer = new URL(server.url);
  const web = await client.discovery(issuer, WEB.id, undefined, client.ClientSecretPost(WEB.secret), options);
  const service = await client.discovery(
    issuer,
    SERVICE.id,
    undefined,
    client.ClientSecretBasic(SERVICE.secret),
    options,
  );
  return {
    server,
    target,
    web,
    service,
    async close() {
      await server.close();
      await target.close();
    },
  };
}

export interface AuthorizationStart {
  readonly url: URL;
  readonly verifier: string;
  readonly state: string;
}

/** An authorization URL as the library builds it: PKCE S256 and a state; `extra` parameters (`ui_locales`) added. */
export async function authorizationUrl(
  setup: LibrarySetup,
  scope = 'read write',
  extra: Record<string, string> = {},
): Promise<AuthorizationStart> {
  const verifier = client.randomPKCECodeVerifier();
  const state = client.randomState();
  const url = client.buildAuthorizationUrl(setup.web, {
    redirect_uri: setup.target.callback,
    scope,
    code_challenge: await client.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    state,
    ...extra,
  });
  return { url, verifier, state };
}

/** The web client as openid-client sees it through OpenID Connect Discovery (`/.well-known/openid-configuration`). */
export async function openIdConfiguration(setup: LibrarySetup): Promise<client.Configuration> {
  return client.discovery(new URL(setup.server.url), WEB.id, undefined, client.ClientSecretPost(WEB.secret), {
    execute: [client.allowInsecureRequests],
  });
}

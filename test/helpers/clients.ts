/** A `security.clients-file` for tests: one client of each kind, secrets hashed at a low cost. */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import bcrypt from 'bcryptjs';
import { tempDir } from './server.ts';

export const SERVICE = { id: 'reporting-service', secret: 'reporting-secret' } as const;
export const WEB = { id: 'web-app', secret: 'web-app-secret', redirect: 'http://127.0.0.1:9/callback' } as const;
export const SPA = { id: 'spa', redirect: 'http://127.0.0.1:9/spa/callback' } as const;
/** A third-party application: asks the person's consent (WEB and SPA are first-party). */
export const PARTNER = {
  id: 'partner-app',
  secret: 'partner-app-secret',
  redirect: 'http://127.0.0.1:9/partner/callback',
} as const;
/** A third-party application without the refresh_token grant: asks consent; its logins have access tokens only. */
export const WIDGET = {
  id: 'partner-widget',
  secret: 'partner-widget-secret',
  redirect: 'http://127.0.0.1:9/widget/callback',
} as const;
/** Has a redirect URI but not the authorization_code grant. */
export const CONSOLE = { id: 'ops-console', secret: 'ops-console-secret', redirect: 'http://127.0.0.1:9/ops' } as const;

/** A first-party application of the password grant that may ask the OpenID scopes (not in {@link CLIENTS}). */
export const OPENID_APP = { id: 'oidc-app', secret: 'oidc-app-secret' } as const;

/** A third-party application that may ask the OpenID scopes: asks consent (not in {@link CLIENTS}). */
export const OPENID_PARTNER = {
  id: 'partner-oidc',
  secret: 'partner-oidc-secret',
  redirect: 'http://127.0.0.1:9/partner-oidc/callback',
} as const;

/** The client secrets above, for the log audit. */
export const CLIENT_SECRETS = [
  SERVICE.secret,
  WEB.secret,
  CONSOLE.secret,
  PARTNER.secret,
  WIDGET.secret,
  OPENID_APP.secret,
  OPENID_PARTNER.secret,
] as const;

/** {@link OPENID_APP}'s entry of a clients file. */
export const OPENID_APP_CLIENT = {
  client_id: OPENID_APP.id,
  client_secret: bcrypt.hashSync(OPENID_APP.secret, 4),
  token_endpoint_auth_method: 'client_secret_basic',
  grant_types: ['password'],
  scope: 'openid profile email read',
};

export const CLIENTS = [
  {
    client_id: SERVICE.id,
    client_name: 'Nightly reports',
    client_secret: bcrypt.hashSync(SERVICE.secret, 4),
    token_endpoint_auth_method: 'client_secret_basic',
    grant_types: ['client_credentials'],
    scope: 'read',
  },
  {
    client_id: WEB.id,
    client_secret: bcrypt.hashSync(WEB.secret, 4),
    token_endpoint_auth_method: 'client_secret_post',
    redirect_uris: [WEB.redirect],
    grant_types: ['authorization_code', 'refresh_token'],
    scope: 'read write',
    consent: 'implicit',
  },
  {
    client_id: SPA.id,
    token_endpoint_auth_method: 'none',
    redirect_uris: [SPA.redirect],
    grant_types: ['authorization_code'],
    scope: 'read',
    consent: 'implicit',
  },
  {
    client_id: CONSOLE.id,
    client_secret: bcrypt.hashSync(CONSOLE.secret, 4),
    redirect_uris: [CONSOLE.redirect],
    grant_types: ['client_credentials'],
    scope: 'read',
  },
  {
    client_id: PARTNER.id,
    client_name: 'Partner reports',
    client_secret: bcrypt.hashSync(PARTNER.secret, 4),
    token_endpoint_auth_method: 'client_secret_basic',
    redirect_uris: [PARTNER.redirect],
    grant_types: ['authorization_code', 'refresh_token'],
    scope: 'read write',
  },
  {
    client_id: WIDGET.id,
    client_name: 'Partner widget',
    client_secret: bcrypt.hashSync(WIDGET.secret, 4),
    token_endpoint_auth_method: 'client_secret_basic',
    redirect_uris: [WIDGET.redirect],
    grant_types: ['authorization_code'],
    scope: 'read',
  },
];

/** Writes `clients` (default: {@link CLIENTS}) to a temporary file; returns its path. */
export function clientsFile(clients: readonly unknown[] = CLIENTS): string {
  const path = join(tempDir('troupe-clients-'), 'clients.json');
  writeFileSync(path, JSON.stringify(clients));
  return path;
}

/** {@link OPENID_PARTNER}'s entry of a clients file. */
export const OPENID_PARTNER_CLIENT = {
  client_id: OPENID_PARTNER.id,
  client_name: 'Partner sign-in',
  client_secret: bcrypt.hashSync(OPENID_PARTNER.secret, 4),
  token_endpoint_auth_method: 'client_secret_basic',
  redirect_uris: [OPENID_PARTNER.redirect],
  grant_types: ['authorization_code'],
  scope: 'openid profile email read',
};

/**
 * The registered OAuth clients, as the configuration registers them: built here, in the
 * composition root, and handed to the security functions, the actors and HTTP that check them.
 */
import type { Config } from '../config.ts';
import type { Client } from '../security/clients.ts';
import { docsCodeFlow, docsRedirectUri } from '../security/docs-client.ts';

/**
 * The original client of `security.jwt.*` first, then those of `security.clients-file`. With the
 * authorization_code grant (by default), the original client is registered with one redirect URI,
 * `/docs`'s at the issuer, so that its Authorize offers the code flow (with PKCE, the secret typed
 * into the dialog); none when the issuer is no redirect URI a code may go to (`http:` to another
 * host than loopback). It is first-party: no consent page.
 */
export function registeredClients(config: Config): readonly Client[] {
  const jwt = config.security.jwt;
  // Registers no method: it has always been used both with HTTP Basic and with its secret in the body.
  const original: Client = {
    clientId: jwt.clientId,
    secretHash: jwt.clientSecret,
    authMethod: undefined,
    grantTypes: jwt.grantType,
    scopes: [jwt.scopeRead, jwt.scopeWrite],
    redirectUris: docsCodeFlow(jwt.grantType, jwt.issuer) ? [docsRedirectUri(jwt.issuer)] : [],
    consent: 'implicit',
  };
  return [original, ...config.security.clientsFile];
}

/**
 * The ids of the service's own applications (first-party clients): the `security.jwt.*` client and
 * those registered with `"consent": "implicit"`. Only their tokens manage an account's security
 * (self-service). Read from configuration alone: a client the configuration does not register,
 * one that was removed included, is not among them.
 */
export function firstPartyClientIds(config: Config): ReadonlySet<string> {
  const implicit = config.security.clientsFile.filter((c) => c.consent === 'implicit').map((c) => c.clientId);
  return new Set([config.security.jwt.clientId, ...implicit]);
}

/**
 * The code flow of the `/docs` page's Authorize: the original client (`security.jwt.*`), when it has
 * the authorization_code grant, is registered with one redirect URI, the page's own
 * `oauth2-redirect.html` at the issuer, so that Swagger UI can sign in there with PKCE.
 */
import { redirectUriProblem } from './client-registry.ts';

/** Where Swagger UI's Authorize of `/docs` comes back to with a code: a page of this server. */
export const docsRedirectUri = (issuer: string): string => `${issuer.replace(/\/+$/, '')}/docs/oauth2-redirect.html`;

/**
 * Whether `/docs` offers the code flow: the original client has the grant, and the issuer makes a
 * redirect URI a code may go to (not `http:` to a host other than loopback: RFC 8252 §8.3).
 */
export const docsCodeFlow = (grantTypes: readonly string[], issuer: string): boolean =>
  grantTypes.includes('authorization_code') && redirectUriProblem(docsRedirectUri(issuer)) === undefined;

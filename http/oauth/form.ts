/** The form parameters the OAuth endpoints share: each given at most once, a required one not empty. */
import { OAuthError } from '../problems.ts';

export const invalidRequest = (description: string): OAuthError => new OAuthError(400, 'invalid_request', description);

/** One value per parameter (RFC 6749 §3.2): a repeated one is an invalid request. */
export function single(params: URLSearchParams, name: string): string | undefined {
  const values = params.getAll(name);
  if (values.length > 1) throw invalidRequest(`Parameter ${name} is repeated`);
  return values[0];
}

export function required(params: URLSearchParams, name: string): string {
  const value = single(params, name);
  if (value === undefined || value === '') throw invalidRequest(`Missing parameter: ${name}`);
  return value;
}

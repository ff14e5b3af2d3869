/**
 * The form parameters client authentication reads itself, each given at most once; the rest of an
 * OAuth endpoint's form is validated from its declared schema (../form-validation.ts).
 */
import { OAuthError } from '../problems.ts';

export const invalidRequest = (description: string): OAuthError => new OAuthError(400, 'invalid_request', description);

/** One value per parameter (RFC 6749 §3.2): a repeated one is an invalid request. */
export function single(params: URLSearchParams, name: string): string | undefined {
  const values = params.getAll(name);
  if (values.length > 1) throw invalidRequest(`Parameter ${name} is repeated`);
  return values[0];
}

/** The textual forms that configuration, initial data and HTTP input share, each defined once. */

/** RFC 6749 §3.3 scope-token: printable ASCII but space, `"` and `\`. */
export const SCOPE_TOKEN = /^[\x21\x23-\x5B\x5D-\x7E]+$/;

/**
 * A BCrypt hash (`$2a$`, `$2b$` or `$2y$`, a two-digit cost, 53 characters of salt and digest),
 * optionally behind Spring Security's `{bcrypt}` prefix, so hashes from a Spring application work.
 */
export const BCRYPT_HASH = /^(\{bcrypt\})?\$2[aby]\$\d\d\$[./A-Za-z0-9]{53}$/;

/** The hash without Spring's `{bcrypt}` prefix, as bcryptjs reads it. */
export const withoutBcryptPrefix = (hash: string): string => hash.replace(/^\{bcrypt\}/, '');

/**
 * `refresh-token` is accepted wherever a grant type is named (configuration, `grant_type`), as the
 * Spring OAuth samples this service's configuration comes from spell it; it means `refresh_token`.
 */
export const grantTypeName = (name: string): string => (name === 'refresh-token' ? 'refresh_token' : name);

/**
 * OpenID Connect's scopes and the claims each releases (Core §5.4), and the UserInfo answer built
 * from them. `openid` releases `sub`, the account's subject (`subjects.ts`), the same as the
 * id_token's; `profile` the names, the username and the time the profile last changed; `email` the
 * email, never verified here. Only the claims of the scopes granted, and of those only the ones
 * the account has: an empty claim is left out.
 */
import { accountSubject } from './subjects.ts';

/** The scope that makes a request an OpenID one, and a token one UserInfo answers. */
export const OPENID_SCOPE = 'openid';

/** Each OpenID scope this service supports, with the claims it releases at UserInfo. */
export const SCOPE_CLAIMS = {
  openid: ['sub'],
  profile: ['name', 'given_name', 'family_name', 'preferred_username', 'updated_at'],
  email: ['email', 'email_verified'],
} as const satisfies Readonly<Record<string, readonly string[]>>;

export type OpenIdScope = keyof typeof SCOPE_CLAIMS;
export type Claim = (typeof SCOPE_CLAIMS)[OpenIdScope][number];

/** The OpenID scopes, each offered beside the clients' own scopes. */
export const OPENID_SCOPES: readonly OpenIdScope[] = ['openid', 'profile', 'email'];

/** The claims of the id_token's protocol (Core §2, §3.1.3.6), which carries no other by default. */
export const ID_TOKEN_CLAIMS = ['sub', 'iss', 'aud', 'exp', 'iat', 'auth_time', 'nonce', 'at_hash'] as const;

/** Every claim this service can release: the discovery document's `claims_supported`. */
export const CLAIMS_SUPPORTED: readonly string[] = [
  ...new Set<string>([...ID_TOKEN_CLAIMS, ...OPENID_SCOPES.flatMap((s) => SCOPE_CLAIMS[s])]),
];

/** What the claims are read from: an account's profile (AccountActor's `AccountProfile`). */
export interface ProfileSource {
  readonly id: number;
  readonly username: string;
  readonly firstName: string;
  readonly lastName: string;
  /** Null when the account has none. */
  readonly email: string | null;
  /** When a profile field last changed, epoch seconds; 0 when unknown. */
  readonly updatedAt: number;
}

export type UserInfo = Readonly<Partial<Record<Claim, string | number | boolean>>> & { readonly sub: string };

const filled = (value: string): string | undefined => (value.trim() === '' ? undefined : value.trim());

/** Each claim of `profile` by name; undefined where the account has none. */
function claimValues(profile: ProfileSource): { sub: string } & Record<Claim, string | number | boolean | undefined> {
  const given = filled(profile.firstName);
  const family = filled(profile.lastName);
  const email = profile.email === null ? undefined : filled(profile.email);
  return {
    sub: accountSubject(profile.id),
    name: filled([given, family].filter((part) => part !== undefined).join(' ')),
    given_name: given,
    family_name: family,
    preferred_username: profile.username,
    updated_at: profile.updatedAt > 0 ? profile.updatedAt : undefined,
    email,
    // troupe does not verify addresses: an address is as an administrator typed it.
    email_verified: email === undefined ? undefined : false,
  };
}

/**
 * The UserInfo answer (Core §5.3.2) for a token granted `scopes`: `sub` always, and the claims of
 * each OpenID scope granted that the account has, in the order of {@link SCOPE_CLAIMS}.
 */
export function userInfoClaims(profile: ProfileSource, scopes: readonly string[]): UserInfo {
  const values = claimValues(profile);
  const granted = OPENID_SCOPES.filter((s) => s === OPENID_SCOPE || scopes.includes(s));
  const claims: { sub: string } & Partial<Record<Claim, string | number | boolean>> = { sub: values.sub };
  for (const claim of granted.flatMap((s): readonly Claim[] => SCOPE_CLAIMS[s])) {
    const value = values[claim];
    if (claim !== 'sub' && value !== undefined) claims[claim] = value;
  }
  return claims;
}

/** Response shapes of the contract, as zod schemas, for the OpenAPI document. */
import { z } from 'zod';
import { OBJECT_ID } from '../../src/ids.ts';

const id = z
  .string()
  .regex(OBJECT_ID)
  .meta({ description: 'ObjectId form: 24 hexadecimal characters', example: '6b0233279e487a81ed925ceb' });
const instant = z.string().meta({ format: 'date-time' });

export const Problem = z
  .object({
    type: z.string(),
    title: z.string(),
    status: z.number().int(),
    detail: z.string(),
    errors: z.array(z.object({ field: z.string(), message: z.string() })).optional(),
    requestId: z.string(),
  })
  .meta({ title: 'Problem', description: 'RFC 9457 problem details' });

export const OAuthErrorBody = z
  .object({ error: z.string(), error_description: z.string() })
  .meta({ title: 'OAuthError', description: 'RFC 6749 §5.2 / RFC 6750 error body' });

export const TokenResponse = z
  .object({
    access_token: z.string(),
    token_type: z.literal('Bearer'),
    refresh_token: z.string().optional(),
    expires_in: z.number().int(),
    scope: z.string(),
    jti: z.string(),
    id_token: z.string().optional().meta({
      description:
        'OpenID Connect: for a code, or a refresh of its login, whose scope has `openid`; signed with a key of the JWKS (RS256 unless rotated otherwise)',
    }),
  })
  .meta({ title: 'TokenResponse' });

/** A form parameter that must be sent, and not empty. */
export const FormParameter = z.string().min(1);

/**
 * The client's own parameters in a form: read by client authentication before the form is
 * validated (client_secret_post, or a public client naming itself), listed for the description.
 */
export const ClientParameters = {
  client_id: z
    .string()
    .optional()
    .meta({ description: 'client_secret_post, or alone for a public client (`none`); else prefer HTTP Basic' }),
  client_secret: z.string().optional(),
};

/** RFC 7009 §2.1, RFC 7662 §2.1: the hint only orders the search, so every value is taken (once). */
export const TokenForm = z
  .object({
    token_type_hint: z
      .string()
      .optional()
      .meta({ description: '`access_token` or `refresh_token`; a hint only, every value is accepted' }),
    token: FormParameter,
  })
  .meta({ title: 'TokenForm' });

export const Introspection = z
  .object({
    active: z.boolean(),
    scope: z.string().optional(),
    client_id: z.string().optional(),
    username: z.string().optional(),
    token_type: z.string().optional(),
    exp: z.number().int().optional(),
    iat: z.number().int().optional(),
    sub: z.string().optional(),
    aud: z.string().optional(),
    iss: z.string().optional(),
    jti: z.string().optional(),
  })
  .meta({ title: 'Introspection' });

const Role = z.object({ id: z.number().int(), roleName: z.string(), description: z.string() });
export const Account = z
  .object({
    id: z.number().int(),
    username: z.string(),
    password: z.string().optional().meta({
      description: 'BCrypt hash, only with app.list-all.include-password-hash=true (as the original service had it)',
    }),
    firstName: z.string(),
    lastName: z.string(),
    roles: z.array(Role),
  })
  .meta({ title: 'Account' });

export const AccountSummary = z
  .object({
    id: z.number().int(),
    username: z.string(),
    firstName: z.string(),
    lastName: z.string(),
    email: z.string().nullable().meta({ description: 'null when the account has none' }),
    roles: z.array(z.string()),
    enabled: z.boolean(),
  })
  .meta({ title: 'AccountSummary', description: 'An account as an administrator sees it: never a password or hash' });
export const AccountPage = z
  .object({ items: z.array(AccountSummary), nextCursor: z.string().nullable() })
  .meta({ title: 'AccountPage' });
export const RoleSummary = z.object({ roleName: z.string(), description: z.string() }).meta({ title: 'RoleSummary' });
export const Login = z
  .object({
    sid: z.string(),
    clientId: z.string(),
    createdAt: instant,
    lastRefreshedAt: instant,
    expiresAt: instant,
  })
  .meta({
    title: 'Login',
    description:
      'A live login of an account (its refresh tokens, or its one access token for a client without them); `sid` is its id',
  });

export const Consent = z
  .object({
    clientId: z.string(),
    clientName: z.string(),
    scopes: z.array(z.string()),
    grantedAt: instant,
    updatedAt: instant,
  })
  .meta({ title: 'Consent', description: 'The scopes an account allowed a client at the authorization endpoint' });

export const Employee = z
  .object({
    id,
    name: z.string(),
    dateOfBirth: z.string().meta({ format: 'date' }),
    createdAt: instant,
    updatedAt: instant,
    version: z.number().int(),
  })
  .meta({ title: 'Employee' });
export const EmployeePage = z
  .object({ items: z.array(Employee), nextCursor: z.string().nullable() })
  .meta({ title: 'EmployeePage' });

export const User = z
  .object({
    id,
    name: z.string(),
    email: z.string(),
    createdAt: instant,
    updatedAt: instant,
    version: z.number().int(),
  })
  .meta({ title: 'User' });
export const Activity = z
  .object({ id, userId: id, type: z.string(), detail: z.record(z.string(), z.unknown()), at: instant })
  .meta({ title: 'Activity' });
export const UserWithActivity = z
  .object({ user: User, activities: z.array(Activity), nextCursor: z.string().nullable() })
  .meta({ title: 'UserWithActivity' });

export const Jwks = z.object({ keys: z.array(z.record(z.string(), z.unknown())) }).meta({ title: 'JWKS' });
export const TokenKey = z.object({ alg: z.string(), value: z.string() });
export const Metadata = z
  .record(z.string(), z.unknown())
  .meta({ description: 'RFC 8414 authorization server metadata' });
export const OpenIdMetadata = z
  .object({
    issuer: z.string(),
    authorization_endpoint: z.string(),
    token_endpoint: z.string(),
    userinfo_endpoint: z.string(),
    end_session_endpoint: z.string(),
    jwks_uri: z.string(),
    response_types_supported: z.array(z.string()),
    subject_types_supported: z.array(z.string()),
    id_token_signing_alg_values_supported: z.array(z.string()),
    scopes_supported: z.array(z.string()),
    claims_supported: z.array(z.string()),
  })
  .catchall(z.unknown())
  .meta({
    description:
      'OpenID Connect Discovery 1.0 metadata: every field of the RFC 8414 metadata, with the same values, and the OpenID Provider’s own',
  });
export const Health = z.object({ status: z.string(), detail: z.string().optional() });
/** OpenID Connect UserInfo (Core §5.3.2): `sub`, and the claims of the OpenID scopes granted that the account has. */
export const UserInfo = z
  .object({
    sub: z.string().meta({ description: "The account's subject, `account:<id>`, as the id_token's" }),
    name: z.string().optional().meta({ description: 'profile: the given and the family name, joined by a space' }),
    given_name: z.string().optional().meta({ description: 'profile' }),
    family_name: z.string().optional().meta({ description: 'profile' }),
    preferred_username: z.string().optional().meta({ description: 'profile: the username' }),
    updated_at: z
      .number()
      .int()
      .optional()
      .meta({ description: 'profile: when the profile last changed, epoch seconds' }),
    email: z.string().optional().meta({ description: 'email' }),
    email_verified: z.boolean().optional().meta({ description: 'email: always false (addresses are not verified)' }),
  })
  .meta({ title: 'UserInfo' });

/** The authorization request (RFC 6749 §4.1.1 with PKCE), as the endpoint reads it. */
export const AuthorizationRequest = z.object({
  response_type: z.literal('code'),
  client_id: z.string(),
  redirect_uri: z
    .string()
    .optional()
    .meta({ description: 'Compared exactly with the registered ones; may be left out when the client has one' }),
  scope: z.string().optional().meta({ description: 'Space-separated; within the client’s scope. Default: all of it' }),
  state: z.string().optional(),
  code_challenge: z.string().optional().meta({
    description:
      'PKCE S256 challenge (43 base64url characters); required, but for a confidential client registered with `pkce_required: false` in an `openid` request with a `nonce`',
  }),
  code_challenge_method: z.literal('S256').optional().meta({ description: 'S256; required with a code_challenge' }),
  nonce: z.string().optional().meta({
    description:
      'OpenID Connect: kept with the code and returned in the id_token of an `openid` request; sent through the sign-in and consent forms',
  }),
  ui_locales: z.string().optional().meta({
    description:
      'OpenID Connect: the languages of the pages, space-separated, most wanted first; the first with messages wins over Accept-Language',
  }),
});

/** The sign-in form's fields. */
export const SignIn = AuthorizationRequest.extend({
  csrf_token: z.string().meta({ description: 'From the served form; valid with the cookie it was served with' }),
  username: z.string(),
  password: z.string(),
});

/** The consent form's fields. */
export const ConsentForm = AuthorizationRequest.extend({
  csrf_token: z.string().meta({ description: 'From the served form; valid with the cookie it was served with' }),
  consent_ticket: z
    .string()
    .meta({ description: 'From the consent form: the sign-in it follows, bound to the cookie and the request' }),
  decision: z.enum(['allow', 'deny']),
});

/** An RP-initiated logout request (OpenID Connect RP-Initiated Logout 1.0 §2), by GET or POST. */
export const LogoutRequest = z.object({
  id_token_hint: z.string().optional().meta({
    description:
      'An id_token this server issued (expired ones too): its account’s session ends without asking; refused when it is not one',
  }),
  client_id: z.string().optional().meta({ description: 'The client; must be the hint’s audience when both are sent' }),
  post_logout_redirect_uri: z.string().optional().meta({
    description:
      'Where to go back: exactly one of the client’s registered `post_logout_redirect_uris`; needs `client_id` or `id_token_hint`',
  }),
  state: z.string().optional().meta({ description: 'Sent back with the redirect' }),
  ui_locales: z.string().optional().meta({ description: 'The languages of the pages, space-separated' }),
  logout_hint: z.string().optional().meta({ description: 'Ignored' }),
});

/** The logout request by POST, or the confirmation form's fields (those with `csrf_token` and `decision`). */
export const LogoutForm = LogoutRequest.extend({
  csrf_token: z
    .string()
    .optional()
    .meta({ description: 'The confirmation form’s: from the page, valid with the session it was served to' }),
  decision: z
    .enum(['logout', 'stay'])
    .optional()
    .meta({ description: 'The confirmation form’s: Sign out (`logout`) or Stay signed in (`stay`)' }),
});

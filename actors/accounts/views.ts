/** How AccountActor shows what it stores: an account without its password, times as ISO 8601. */
import type { AccountRecord } from '../../src/stores/account-store.ts';
import type { AccountSummary } from './protocol.ts';

export const summary = (a: AccountRecord): AccountSummary => ({
  id: a.id,
  username: a.username,
  firstName: a.firstName,
  lastName: a.lastName,
  email: a.email,
  roles: a.roles.map((r) => r.roleName),
  enabled: a.enabled,
});

export const iso = (seconds: number): string => new Date(seconds * 1000).toISOString();

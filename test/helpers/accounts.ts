/** Accounts made as an administrator makes them: through `POST /app/admin/users`. */
import * as assert from 'uvu/assert';
import { bearer, login, USERS } from './tokens.ts';

let made = 0;

/** A new USER account `<prefix>-N` (N unique in the run), which has allowed no client anything: its credentials and id. */
export async function newUserAccount(
  url: string,
  prefix: string,
): Promise<{ username: string; password: string; id: number }> {
  const n = ++made;
  const user = { username: `${prefix}-${n}`, password: `${prefix}-password-${n}` };
  const res = await fetch(`${url}/app/admin/users`, {
    method: 'POST',
    headers: { ...bearer((await login(url, USERS.admin)).access_token), 'Content-Type': 'application/json' },
    body: JSON.stringify({ ...user, roles: ['USER'] }),
  });
  assert.is(res.status, 201);
  return { ...user, id: ((await res.json()) as { id: number }).id };
}

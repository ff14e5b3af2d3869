/**
 * The search query of `employee-store.sqlite.ts`, as a pure function of its criteria: tested on
 * every run. The order and the keyset paging are the MongoDB adapter's: the lowercased name, then
 * the id.
 */
import { nameKeyOf, type EmployeeSearch } from './employee-store.ts';

/** A LIKE pattern matching `needle` anywhere, literally; use with `escape '\'`. */
export const likeContains = (needle: string): string => `%${needle.replace(/[\\%_]/g, '\\$&')}%`;

export interface SqlQuery {
  readonly sql: string;
  readonly params: readonly (string | number)[];
}

/** The SQLite query of a search, fetching `limit + 1` rows so the caller knows whether more follow. */
export function sqliteSearch(criteria: EmployeeSearch): SqlQuery {
  const where: string[] = [];
  const params: (string | number)[] = [];
  const add = (clause: string, ...values: (string | number)[]): void => {
    where.push(clause);
    params.push(...values);
  };
  if (criteria.name !== undefined) add("name_key like ? escape '\\'", likeContains(nameKeyOf(criteria.name)));
  if (criteria.id !== undefined) add('id = ?', criteria.id);
  if (criteria.bornFrom !== undefined) add('date_of_birth >= ?', criteria.bornFrom);
  if (criteria.bornTo !== undefined) add('date_of_birth <= ?', criteria.bornTo);
  if (criteria.after !== undefined) add('(name_key, id) > (?, ?)', criteria.after.nameKey, criteria.after.id);
  // The inner query filters and pages on the covering name index; only the page's rows are read
  // (CROSS JOIN keeps that order even before the planner has statistics).
  const inner = `select id from employees${where.length > 0 ? ` where ${where.join(' and ')}` : ''} order by name_key, id limit ?`;
  const sql = `select e.* from (${inner}) page cross join employees e on e.id = page.id order by e.name_key, e.id`;
  return { sql, params: [...params, criteria.limit + 1] };
}

/**
 * EmployeeActor: employee records over an `EmployeeStore` (SQLite or MongoDB). Build messages with
 * the functions below and send them with `ask`.
 */
import type { Request } from '../../src/messaging/ask.ts';
import type { Ref } from '../../src/messaging/nact.ts';
import type { Reply } from '../../src/messaging/reply.ts';
import type { ObjectIdString } from '../../src/ids.ts';
import type { EmployeeChanges, EmployeeRecord, EmployeeSearch, NewEmployee, SearchKey } from '../../src/stores/employee-store.ts';

export type { EmployeeChanges, EmployeeRecord, EmployeeSearch, NewEmployee, SearchKey };

export type ErrorCode =
  | 'employee.not_found' // no record with that id
  | 'employee.version_conflict' // the record is not at the version the caller expected (If-Match)
;

/** One page of a search. */
export interface SearchPage {
  readonly items: readonly EmployeeRecord[];
  /** The last item's position, to pass as `after` for the next page; null after the last match. */
  readonly next: SearchKey | null;
}

export type CreateReply = Reply<EmployeeRecord>;
export type GetReply = Reply<EmployeeRecord, 'employee.not_found'>;
export type SearchReply = Reply<SearchPage>;
export type UpdateReply = Reply<EmployeeRecord, ErrorCode>;
export type DeleteReply = Reply<{ readonly id: ObjectIdString }, 'employee.not_found'>;

export type Command =
  | { readonly type: 'Create'; readonly employee: NewEmployee; readonly sender: Ref<CreateReply> }
  | { readonly type: 'Get'; readonly id: ObjectIdString; readonly sender: Ref<GetReply> }
  | { readonly type: 'Search'; readonly criteria: EmployeeSearch; readonly sender: Ref<SearchReply> }
  | {
    readonly type: 'Update'; readonly id: ObjectIdString; readonly changes: EmployeeChanges;
    /** Undefined: whatever the current version. */
    readonly expectedVersion: number | undefined; readonly sender: Ref<UpdateReply>;
  }
  | { readonly type: 'Delete'; readonly id: ObjectIdString; readonly sender: Ref<DeleteReply> };

/** Stores a new record (version 1). The input is already valid (trimmed name, real past date). */
export const create = (employee: NewEmployee): Request<Command, CreateReply> => (sender) => ({ type: 'Create', employee, sender });

export const get = (id: ObjectIdString): Request<Command, GetReply> => (sender) => ({ type: 'Get', id, sender });

/** One page of matches, ordered by name (case-insensitively) then id. */
export const search = (criteria: EmployeeSearch): Request<Command, SearchReply> => (sender) => ({ type: 'Search', criteria, sender });

/** Applies `changes` and bumps the version; with `expectedVersion`, only if the record is at it. */
export const update = (id: ObjectIdString, changes: EmployeeChanges, expectedVersion?: number): Request<Command, UpdateReply> =>
  (sender) => ({ type: 'Update', id, changes, expectedVersion, sender });

export const remove = (id: ObjectIdString): Request<Command, DeleteReply> => (sender) => ({ type: 'Delete', id, sender });

/**
 * One call per message kind, as a REPL user would type it (`await ask(employees, <example>)`); the
 * REPL's `.protocol employees` lists them. A new message kind without an example fails to compile.
 */
export const examples = {
  Create: "Employee.create({ name: 'Jane Roe', dateOfBirth: '1990-04-12' })",
  Get: "Employee.get('6b0233279e487a81ed925ceb')",
  Search: "Employee.search({ name: 'roe', limit: 10 })",
  Update: "Employee.update('6b0233279e487a81ed925ceb', { name: 'Jane A. Roe' }, 1)",
  Delete: "Employee.remove('6b0233279e487a81ed925ceb')",
} as const satisfies Record<Command['type'], string>;

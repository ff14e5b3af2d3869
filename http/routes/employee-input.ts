/** The employee service's request shapes (§3 of the contract), as zod schemas over the protocol's fields. */
import { z } from 'zod';
import * as Employee from '../../actors/employee/protocol.ts';
import { searchKeyOf } from '../../src/cursors.ts';

const cursor = z
  .string({ error: (issue) => (issue.input === undefined ? 'is required' : 'must be a cursor') })
  .transform((s, ctx) => {
    const key = searchKeyOf(s);
    if (!key) ctx.addIssue({ code: 'custom', message: 'is not a cursor from a previous page' });
    return key ?? z.NEVER;
  });

export const CreateEmployeeInput = Employee.NewEmployeeInput;

export const SearchEmployeesInput = Employee.datesInOrder(
  z.strictObject({ ...Employee.searchFields, cursor: cursor.optional() }),
);

/** Where an id may travel: the query string, or a JSON body. */
export const EmployeeIdInput = z.strictObject({ id: Employee.fields.id.optional() });

export const UpdateEmployeeInput = Employee.changing(
  z.strictObject({ id: Employee.fields.id.optional(), ...Employee.changeFields }),
);

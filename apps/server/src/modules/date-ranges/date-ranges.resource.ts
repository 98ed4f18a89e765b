import { dateRangeCreateSchema, dateRangeSchema, dateRangeUpdateSchema, exceptionOrderProblems, locationProblems } from '@voxplan/contracts';
import { badRequest } from '../../errors.ts';
import { defineResource, memberKeptTenantRecords, tenantRecordFields } from '../../resources/definition.ts';
import { assertNotUsedByNumbers } from '../numbers/numbers.resource.ts';
import { assertNotReferenced } from '../visual-plans/plan-references.ts';
import { presentDateRange } from './date-ranges.service.ts';

/** A tenant's schedules: the date_range block asks them whether it is in hours (schedules.ts). */
export const dateRangesResource = defineResource({
  entity: 'date_range',
  path: '/date-ranges',
  table: 'date_ranges',
  ...memberKeptTenantRecords,
  fields: {
    ...tenantRecordFields,
    name: 'string',
    time_zone: 'string',
    country: 'string',
    state: 'string',
    city: 'string',
  },
  defaultOrder: [{ field: 'name', direction: 'asc' }],
  output: dateRangeSchema,
  createInput: dateRangeCreateSchema,
  updateInput: dateRangeUpdateSchema,
  unique: [{ columns: ['tenant_id', 'name'], code: 'name_already_exists' }],
  present: (rows) => rows.map(presentDateRange),
  toValues(input, _write, before) {
    const misordered = exceptionOrderProblems(input.exceptions as { initial_date: string; final_date: string }[] | undefined);
    if (misordered.length > 0) throw badRequest('initial_date_after_final_date', misordered);
    const values = { ...input };
    if (values.intervals !== undefined) values.intervals = JSON.stringify(values.intervals);
    if (values.exceptions !== undefined) values.exceptions = JSON.stringify(values.exceptions);
    if (before && ['country', 'state', 'city'].some((field) => values[field] !== undefined)) {
      // A patch may change one part of the place: the place as it will be must still hold together.
      const place = { country: (values.country ?? before.country) as string, state: (values.state ?? before.state) as string, city: (values.city ?? before.city) as string };
      const problems = locationProblems(place);
      if (problems.length > 0) throw badRequest('invalid_input', problems);
    }
    return values;
  },
  // A plan's date_range block and a number's rules ask it: not removable while a plan's draft or
  // published version, or a number's rule, names it.
  inUseCode: 'date_range_in_use',
  async beforeDelete(rows, write) {
    await assertNotReferenced(write, 'date_range', rows, 'date_range_in_use');
    await assertNotUsedByNumbers(write, 'date_range', rows, 'date_range_in_use');
  },
});

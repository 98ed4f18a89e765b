import { type HolidayLevel, holidayCreateSchema, holidaySchema, holidayUpdateSchema } from '@voxplan/contracts';
import { badRequest } from '../../errors.ts';
import { defineResource } from '../../resources/definition.ts';
import { placeForLevel, presentHoliday } from './holidays.service.ts';

export const holidaysResource = defineResource({
  entity: 'holiday',
  path: '/holidays',
  table: 'holidays',
  tenantOwned: false,
  // Every tenant's schedules consult them; only administrators keep them.
  read: 'member',
  write: 'admin',
  fields: {
    id: 'integer',
    name: 'string',
    // A calendar date (YYYY-MM-DD), compared as text; not an instant.
    date: 'string',
    recurring: 'integer',
    level: 'string',
    country: 'string',
    state: 'string',
    city: 'string',
    created_time: 'date',
    updated_time: 'date',
  },
  defaultOrder: [
    { field: 'date', direction: 'asc' },
    { field: 'name', direction: 'asc' },
  ],
  output: holidaySchema,
  createInput: holidayCreateSchema,
  updateInput: holidayUpdateSchema,
  unique: [{ columns: ['date', 'level', 'country', 'state', 'city', 'name'], code: 'holiday_already_exists' }],
  auditTenant: () => null,
  present: (rows) => rows.map(presentHoliday),
  toValues(input, _write, before) {
    const values = { ...input };
    if (typeof values.recurring === 'boolean') values.recurring = values.recurring ? 1 : 0;
    if (!before) return placeForLevel(values as typeof values & { level: HolidayLevel; state: string; city: string });
    if (!['level', 'state', 'city'].some((field) => values[field] !== undefined)) return values;
    // A patch may change the level, the state or the city alone: the record as it will be must still agree.
    const merged = {
      level: (values.level ?? before.level) as HolidayLevel,
      state: (values.state ?? before.state) as string,
      city: (values.city ?? before.city) as string,
    };
    const details = [];
    if (merged.level !== 'national' && merged.state === '') details.push({ path: 'state', message: 'required' });
    if (merged.level === 'city' && merged.city === '') details.push({ path: 'city', message: 'required' });
    if (details.length > 0) throw badRequest('invalid_input', details);
    return { ...values, ...placeForLevel(merged) };
  },
});

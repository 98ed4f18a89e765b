import { doNotCallCreateSchema, doNotCallEntrySchema, doNotCallUpdateSchema } from '@voxplan/contracts';
import { badRequest } from '../../errors.ts';
import { toE164 } from '../../lib/phone-numbers.ts';
import { defineResource, memberKeptTenantRecords, type Row, tenantRecordFields, type Values, type WriteContext } from '../../resources/definition.ts';
import { tenantDialingDefaults } from '../tenants/tenant-dialing.ts';

/** The number as typed, in E.164 read with the tenant's country; a number of no numbering plan is refused. */
export async function normalisedNumber(write: WriteContext, tenantId: number, raw: string): Promise<string> {
  const { country } = await tenantDialingDefaults(write.trx, tenantId);
  const e164 = toE164(raw, country);
  if (e164 === null) throw badRequest('invalid_phone_number', [{ path: 'number', message: `'${raw}' is not a phone number${country ? ` (read in ${country})` : ''}` }]);
  return e164;
}

/** Who is writing, by the name people know them by (the username when no name is kept). */
export async function actorName(write: WriteContext): Promise<string> {
  const user = await write.trx.selectFrom('users').select('name').where('id', '=', write.scope.actor.userId).executeTakeFirst();
  return user?.name.trim() || write.scope.actor.username;
}

/**
 * A tenant's do-not-call list (issue 38, docs/do-not-call.md): its users keep it, guests read it.
 * Entered in any form, a number is stored in E.164; `added_by` names who added it.
 */
export const doNotCallResource = defineResource({
  entity: 'do_not_call',
  path: '/do-not-call',
  table: 'do_not_call',
  ...memberKeptTenantRecords,
  fields: { ...tenantRecordFields, number: 'string', reason: 'string', added_by: 'string' },
  // Newest first; the id settles a tie and lets the export read page after page.
  defaultOrder: [
    { field: 'created_time', direction: 'desc' },
    { field: 'id', direction: 'desc' },
  ],
  output: doNotCallEntrySchema,
  createInput: doNotCallCreateSchema,
  updateInput: doNotCallUpdateSchema,
  unique: [{ columns: ['tenant_id', 'number'], code: 'do_not_call_already_exists' }],
  async toValues(input: Values, write: WriteContext, before?: Row): Promise<Values> {
    const values: Values = { ...input };
    const tenantId = before ? Number(before.tenant_id) : write.scope.tenantId;
    // The generic layer refuses a create without a tenant before this runs.
    if (tenantId === null) throw badRequest('no_tenant_provided');
    if (typeof values.number === 'string') values.number = await normalisedNumber(write, tenantId, values.number);
    if (!before) values.added_by = await actorName(write);
    return values;
  },
});

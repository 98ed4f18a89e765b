import { type Campaign, campaignCreateSchema, campaignFieldsFixedWhenStarted, type CampaignRetries, campaignSchema, campaignUpdateSchema } from '@voxplan/contracts';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.ts';
import { AppError, badRequest, conflict } from '../../errors.ts';
import { defineResource, memberKeptTenantRecords, type ResourceHost, type Row, tenantRecordFields, type Values } from '../../resources/definition.ts';
import { providerCanCall } from './campaign-calls.ts';

/** Campaigns that have begun: their plan and number are fixed. */
const startedStatuses = new Set(['running', 'paused']);
const finishedStatuses = new Set(['completed', 'cancelled']);

async function presentCampaigns(rows: Row[], db: Kysely<Database>): Promise<Campaign[]> {
  if (rows.length === 0) return [];
  const ids = (column: string) => [...new Set(rows.map((row) => row[column]).filter((id): id is number => typeof id === 'number'))];
  const planIds = ids('plan_id');
  const numberIds = ids('number_id');
  const rangeIds = ids('date_range_id');
  const [plans, numbers, ranges] = await Promise.all([
    planIds.length ? db.selectFrom('visual_plans').select(['id', 'name']).where('id', 'in', planIds).execute() : [],
    numberIds.length ? db.selectFrom('numbers').select(['id', 'number']).where('id', 'in', numberIds).execute() : [],
    rangeIds.length ? db.selectFrom('date_ranges').select(['id', 'name']).where('id', 'in', rangeIds).execute() : [],
  ]);
  const planName = new Map(plans.map((plan) => [plan.id, plan.name]));
  const numberText = new Map(numbers.map((number) => [number.id, number.number]));
  const rangeName = new Map(ranges.map((range) => [range.id, range.name]));
  return rows.map((row) => ({
    id: row.id,
    tenant_id: row.tenant_id as number,
    created_time: row.created_time as string,
    updated_time: row.updated_time as string,
    name: row.name as string,
    plan_id: row.plan_id as number,
    plan_name: planName.get(row.plan_id as number) ?? '',
    number_id: row.number_id as number,
    number: numberText.get(row.number_id as number) ?? '',
    date_range_id: row.date_range_id as number | null,
    date_range_name: row.date_range_id === null ? null : (rangeName.get(row.date_range_id as number) ?? ''),
    calls_per_second: Number(row.calls_per_second),
    max_concurrent: row.max_concurrent as number,
    retries: JSON.parse(row.retries as string) as CampaignRetries,
    machine_detection: Boolean(row.machine_detection),
    status: row.status as Campaign['status'],
    started_time: row.started_time as string | null,
    finished_time: row.finished_time as string | null,
  }));
}

/**
 * Refuses what a campaign cannot use: a plan, number or date range that is not the tenant's (400
 * reference_not_found: another tenant's record is "not found" too, so nothing tells it exists), and
 * a number whose provider cannot place calls (400 number_cannot_call: a web chat, WhatsApp).
 */
async function assertUsable(app: ResourceHost, trx: Kysely<Database>, tenantId: number, input: Values): Promise<void> {
  const missing: { path: string; message: string }[] = [];
  if (typeof input.plan_id === 'number') {
    const plan = await trx.selectFrom('visual_plans').select('id').where('tenant_id', '=', tenantId).where('id', '=', input.plan_id).executeTakeFirst();
    if (!plan) missing.push({ path: 'plan_id', message: `there is no plan ${input.plan_id} in this tenant` });
  }
  if (typeof input.date_range_id === 'number') {
    const range = await trx.selectFrom('date_ranges').select('id').where('tenant_id', '=', tenantId).where('id', '=', input.date_range_id).executeTakeFirst();
    if (!range) missing.push({ path: 'date_range_id', message: `there is no date range ${input.date_range_id} in this tenant` });
  }
  let provider: string | undefined;
  if (typeof input.number_id === 'number') {
    const number = await trx.selectFrom('numbers').select(['id', 'provider', 'number']).where('tenant_id', '=', tenantId).where('id', '=', input.number_id).executeTakeFirst();
    if (!number) missing.push({ path: 'number_id', message: `there is no number ${input.number_id} in this tenant` });
    provider = number?.provider;
  }
  if (missing.length > 0) throw badRequest('reference_not_found', missing);
  if (provider !== undefined && !providerCanCall(app, provider)) {
    throw badRequest('number_cannot_call', [{ path: 'number_id', message: `a ${provider} number cannot place calls` }]);
  }
}

/**
 * What an edit may change: nothing once the campaign has ended (409 campaign_finished); not its
 * plan or number once it has started (409 campaign_running), since calls under way use them. Its
 * name, schedule, pace and retries apply to the next attempts.
 */
function assertEditable(before: Row, input: Values): void {
  const status = before.status as string;
  if (finishedStatuses.has(status)) throw new AppError(409, 'campaign_finished', [{ path: 'status', message: `the campaign is ${status}` }]);
  if (!startedStatuses.has(status)) return;
  const fixed = campaignFieldsFixedWhenStarted.filter((field) => field in input && input[field] !== before[field]);
  if (fixed.length > 0) throw conflict('campaign_running', fixed.map((path) => ({ path, message: `cannot change while the campaign is ${status}` })));
}

export const campaignsResource = defineResource({
  entity: 'campaign',
  path: '/campaigns',
  table: 'campaigns',
  ...memberKeptTenantRecords,
  fields: {
    ...tenantRecordFields,
    name: 'string',
    plan_id: 'integer',
    number_id: 'integer',
    date_range_id: 'integer',
    calls_per_second: 'number',
    max_concurrent: 'integer',
    machine_detection: 'boolean',
    status: 'string',
    started_time: 'date',
    finished_time: 'date',
  },
  defaultOrder: [{ field: 'created_time', direction: 'desc' }],
  output: campaignSchema,
  createInput: campaignCreateSchema,
  updateInput: campaignUpdateSchema,
  unique: [{ columns: ['tenant_id', 'name'], code: 'name_already_exists' }],
  present: (rows, db) => presentCampaigns(rows, db),
  readTables: ['visual_plans', 'numbers', 'date_ranges'],
  async toValues(input, write, before) {
    if (before) assertEditable(before, input);
    const tenantId = (before?.tenant_id as number | undefined) ?? write.scope.tenantId!;
    await assertUsable(write.app, write.trx, tenantId, input);
    const { retries, machine_detection: detection, ...values } = input;
    if (retries !== undefined) values.retries = JSON.stringify(retries);
    if (detection !== undefined) values.machine_detection = detection ? 1 : 0;
    if (!before) values.status = 'draft';
    return values;
  },
  beforeDelete(rows) {
    const running = rows.filter((row) => row.status === 'running');
    // Its calls under way would report to nothing: pause or cancel it first.
    if (running.length > 0) throw conflict('campaign_running', running.map((row) => ({ path: String(row.id), message: `the campaign ${row.name as string} is running` })));
    return Promise.resolve();
  },
});

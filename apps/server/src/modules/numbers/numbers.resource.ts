import {
  type ErrorCode,
  isMaskedSecret,
  maskSecret,
  missingWhatsappFields,
  numberIssue,
  type NumberProvider,
  type NumberRuleInput,
  numberCreateSchema,
  numberSchema,
  numberUpdateSchema,
  type PhoneNumber,
  whatsappRequiredFields,
  type WhatsappRequiredField,
} from '@voxplan/contracts';
import type { Kysely, Selectable } from 'kysely';
import type { AppContext } from '../../context.ts';
import type { Database } from '../../db/schema.ts';
import { badRequest, conflict } from '../../errors.ts';
import { decryptSecret, encryptSecret, randomToken } from '../../lib/keys.ts';
import { defineResource, memberKeptTenantRecords, type Row, tenantRecordFields, type Values, type WriteContext } from '../../resources/definition.ts';

type NumberRow = Selectable<Database['numbers']>;
type RuleInput = Required<Pick<NumberRuleInput, 'plan_id'>> & { date_range_id: number | null; caller_prefixes: string[] };

/**
 * Where Meta's WhatsApp Cloud API sends a number's messages (and its verification GET): by the
 * number's id, under PUBLIC_URL. The endpoint itself belongs to the WhatsApp channel.
 */
export const whatsappWebhookPath = (numberId: number): string => `/api/v1/hooks/whatsapp/${numberId}`;

/** The tag a site puts in its pages to show the web chat widget of the number with this key (docs/channels-webchat.md). */
export const webchatScriptTag = (publicUrl: string, key: string): string => `<script src="${publicUrl}/widget.js" data-key="${key}" async></script>`;

async function rulesByNumber(db: Kysely<Database>, numberIds: number[]): Promise<Map<number, PhoneNumber['rules']>> {
  const byNumber = new Map<number, PhoneNumber['rules']>(numberIds.map((id) => [id, []]));
  if (numberIds.length === 0) return byNumber;
  const rules = await db
    .selectFrom('number_rules')
    .select(['number_id', 'date_range_id', 'caller_prefixes', 'plan_id'])
    .where('number_id', 'in', numberIds)
    .orderBy('number_id')
    .orderBy('position')
    .execute();
  for (const rule of rules) {
    byNumber.get(rule.number_id)?.push({ date_range_id: rule.date_range_id, caller_prefixes: JSON.parse(rule.caller_prefixes) as string[], plan_id: rule.plan_id });
  }
  return byNumber;
}

/** The stored token, decrypted then masked: its last characters tell which one it is, never the whole. */
function maskedToken(app: Pick<AppContext, 'keys'>, stored: string | null): string {
  return stored === null ? '' : maskSecret(decryptSecret(app.keys.secretsKey, stored));
}

async function presentNumbers(rows: Row[], db: Kysely<Database>, app: AppContext): Promise<PhoneNumber[]> {
  const rules = await rulesByNumber(
    db,
    rows.map((row) => row.id),
  );
  return rows.map((row) => {
    const number = row as unknown as NumberRow;
    return {
      id: number.id,
      tenant_id: number.tenant_id,
      created_time: number.created_time,
      updated_time: number.updated_time,
      number: number.number,
      description: number.description,
      provider: number.provider,
      voice_plan_id: number.voice_plan_id,
      chat_plan_id: number.chat_plan_id,
      rules: rules.get(number.id) ?? [],
      whatsapp_verify_token: number.whatsapp_verify_token,
      whatsapp_token: maskedToken(app, number.whatsapp_token),
      whatsapp_phone_number_id: number.whatsapp_phone_number_id,
      whatsapp_app_secret: maskedToken(app, number.whatsapp_app_secret),
      whatsapp_business_account_id: number.whatsapp_business_account_id,
      whatsapp_daily_limit: number.whatsapp_daily_limit,
      whatsapp_webhook_url: number.provider === 'whatsapp' ? app.config.publicUrl + whatsappWebhookPath(number.id) : null,
      webchat_key: number.webchat_key ?? '',
      webchat_origins: JSON.parse(number.webchat_origins) as string[],
      webchat_script: number.provider === 'webchat' && number.webchat_key ? webchatScriptTag(app.config.publicUrl, number.webchat_key) : null,
      webchat_prechat: JSON.parse(number.webchat_prechat) as PhoneNumber['webchat_prechat'],
      webchat_identity_secret: maskedToken(app, number.webchat_identity_secret),
    };
  });
}

/**
 * Refuses (400 reference_not_found) plans and date ranges that are not the tenant's: another
 * tenant's record is "not found" as well, so nothing tells that it exists. Each detail's path
 * names the field (`voice_plan_id`, `rules.2.date_range_id`).
 */
async function assertReferencesExist(trx: Kysely<Database>, tenantId: number, input: Values): Promise<void> {
  const wanted: { path: string; table: 'visual_plans' | 'date_ranges'; id: number }[] = [];
  for (const field of ['voice_plan_id', 'chat_plan_id'] as const) {
    if (typeof input[field] === 'number') wanted.push({ path: field, table: 'visual_plans', id: input[field] });
  }
  for (const [index, rule] of ((input.rules as RuleInput[] | undefined) ?? []).entries()) {
    wanted.push({ path: `rules.${index}.plan_id`, table: 'visual_plans', id: rule.plan_id });
    if (rule.date_range_id !== null) wanted.push({ path: `rules.${index}.date_range_id`, table: 'date_ranges', id: rule.date_range_id });
  }
  const found = new Set<string>();
  for (const table of ['visual_plans', 'date_ranges'] as const) {
    const ids = [...new Set(wanted.filter((reference) => reference.table === table).map((reference) => reference.id))];
    if (ids.length === 0) continue;
    // Both tables have id and tenant_id; Kysely types a query per table, so one is named for both.
    const rows = await trx
      .selectFrom(table as 'visual_plans')
      .select('id')
      .where('tenant_id', '=', tenantId)
      .where('id', 'in', ids)
      .execute();
    for (const row of rows) found.add(`${table}:${row.id}`);
  }
  const missing = wanted.filter((reference) => !found.has(`${reference.table}:${reference.id}`));
  if (missing.length > 0) {
    throw badRequest(
      'reference_not_found',
      missing.map((reference) => ({ path: reference.path, message: `there is no ${reference.table === 'visual_plans' ? 'plan' : 'date range'} ${reference.id} in this tenant` })),
    );
  }
}

/** A secret column (the WhatsApp token, the app secret) as it will be: a masked value sent back keeps the stored one, empty clears it. */
function storedToken(write: WriteContext, column: 'whatsapp_token' | 'whatsapp_app_secret', sent: unknown, before: Row | undefined): string | null | undefined {
  if (typeof sent !== 'string') return undefined;
  if (isMaskedSecret(sent)) {
    const kept = before?.[column] as string | null | undefined;
    if (kept === undefined || kept === null) throw badRequest('invalid_input', [{ path: column, message: 'required' }]);
    return kept;
  }
  return sent === '' ? null : encryptSecret(write.app.keys.secretsKey, sent);
}

/** Meta's fields as the number will hold them: what this write sets, else what is stored (null: none). */
function whatsappState(values: Values, before: Row | undefined): Record<WhatsappRequiredField, unknown> {
  const state = {} as Record<WhatsappRequiredField, unknown>;
  for (const field of whatsappRequiredFields) state[field] = field in values ? values[field] : before?.[field];
  return state;
}

export const numbersResource = defineResource({
  entity: 'number',
  path: '/numbers',
  table: 'numbers',
  ...memberKeptTenantRecords,
  fields: {
    ...tenantRecordFields,
    number: 'string',
    description: 'string',
    provider: 'string',
    voice_plan_id: 'integer',
    chat_plan_id: 'integer',
  },
  defaultOrder: [{ field: 'number', direction: 'asc' }],
  output: numberSchema,
  createInput: numberCreateSchema,
  updateInput: numberUpdateSchema,
  // A phone number across the system, not per tenant: a call to the number must find one tenant. A web chat's name in its tenant.
  unique: [
    { columns: ['number'], code: 'number_already_exists' },
    { columns: ['tenant_id', 'number'], code: 'webchat_name_already_exists' },
  ],
  present: presentNumbers,
  readTables: ['number_rules'],
  beforeCreate: ({ app, trx }) => app.license.assertRoom('numbers', trx),
  async toValues(input, write, before) {
    const tenantId = (before?.tenant_id as number | undefined) ?? write.scope.tenantId!;
    await assertReferencesExist(write.trx, tenantId, input);
    const { rules: _rules, whatsapp_token: token, whatsapp_app_secret: appSecret, webchat_origins: origins, webchat_prechat: prechat, draft, ...values } = input;
    if (Array.isArray(origins)) values.webchat_origins = JSON.stringify([...new Set(origins as string[])]);
    if (Array.isArray(prechat)) values.webchat_prechat = JSON.stringify([...new Set(prechat as string[])]);
    const whatsappToken = storedToken(write, 'whatsapp_token', token, before);
    if (whatsappToken !== undefined) values.whatsapp_token = whatsappToken;
    const whatsappAppSecret = storedToken(write, 'whatsapp_app_secret', appSecret, before);
    if (whatsappAppSecret !== undefined) values.whatsapp_app_secret = whatsappAppSecret;
    // Meta's verification needs a token: a WhatsApp number without one is given an unguessable one.
    const provider = (values.provider ?? before?.provider) as NumberProvider;
    // An edit that names the number or the provider alone: the other is the stored one (the schema checked both when both came).
    const issue = 'number' in values || 'provider' in values ? numberIssue(provider, (values.number ?? before?.number) as string) : null;
    if (issue) throw badRequest('invalid_input', [{ path: 'number', message: issue }]);
    const verifyToken = (values.whatsapp_verify_token ?? before?.whatsapp_verify_token ?? '') as string;
    if (provider === 'whatsapp' && verifyToken === '') values.whatsapp_verify_token = randomToken(24);
    // Without what Meta needs the number cannot take a message: refused, unless saved as a draft on purpose.
    const missing = draft === true ? [] : missingWhatsappFields({ provider, ...whatsappState(values, before) });
    if (missing.length > 0) throw badRequest('whatsapp_incomplete', missing.map((path) => ({ path, message: 'required' })));
    // The widget names its number by a public key, generated once and kept if the provider changes back and forth.
    if (provider === 'webchat' && !before?.webchat_key) values.webchat_key = `wc_${randomToken(24)}`;
    return values;
  },
  async afterWrite(id, input, { trx }) {
    if (input.rules === undefined) return;
    const rules = input.rules as RuleInput[];
    await trx.deleteFrom('number_rules').where('number_id', '=', id).execute();
    if (rules.length === 0) return;
    await trx
      .insertInto('number_rules')
      .values(rules.map((rule, position) => ({ number_id: id, position, date_range_id: rule.date_range_id, caller_prefixes: JSON.stringify(rule.caller_prefixes), plan_id: rule.plan_id })))
      .execute();
  },
});

/**
 * Refuses (409 `code`) the removal of plans or date ranges a number runs or routes to, naming the
 * numbers in the details (`path` is the id of the record in use; `number_id` and `number` the
 * number using it). Called from those resources' beforeDelete, in the removal's transaction, after
 * their plan references were checked (which on PostgreSQL locked the rows first).
 */
export async function assertNotUsedByNumbers(write: WriteContext, kind: 'plan' | 'date_range', rows: readonly Row[], code: ErrorCode): Promise<void> {
  if (rows.length === 0) return;
  const ids = rows.map((row) => row.id);
  const tenants = [...new Set(rows.map((row) => row.tenant_id as number))];
  const byRule = write.trx
    .selectFrom('number_rules as r')
    .innerJoin('numbers as n', 'n.id', 'r.number_id')
    .select([kind === 'plan' ? 'r.plan_id as ref_id' : 'r.date_range_id as ref_id', 'n.id', 'n.number'])
    .where('n.tenant_id', 'in', tenants)
    .where(kind === 'plan' ? 'r.plan_id' : 'r.date_range_id', 'in', ids);
  const users =
    kind === 'plan'
      ? await byRule
          .union(write.trx.selectFrom('numbers as n').select(['n.voice_plan_id as ref_id', 'n.id', 'n.number']).where('n.tenant_id', 'in', tenants).where('n.voice_plan_id', 'in', ids))
          .union(write.trx.selectFrom('numbers as n').select(['n.chat_plan_id as ref_id', 'n.id', 'n.number']).where('n.tenant_id', 'in', tenants).where('n.chat_plan_id', 'in', ids))
          .execute()
      : await byRule.distinct().execute();
  if (users.length === 0) return;
  const label = kind === 'plan' ? 'plan' : 'date range';
  throw conflict(
    code,
    users
      .sort((a, b) => Number(a.ref_id) - Number(b.ref_id) || a.id - b.id)
      .map((user) => ({ path: String(user.ref_id), message: `${label} ${user.ref_id} is used by the number ${user.number} (${user.id})`, number_id: user.id, number: user.number })),
  );
}

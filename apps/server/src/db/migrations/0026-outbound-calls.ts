import type { Kysely } from 'kysely';

/**
 * Issue 38: calls the plan places (docs/outbound.md). A call is stored before the provider has it,
 * so that its callbacks (which may come before the request that placed it returns) find it, and an
 * unanswered one keeps its outcome although no session ever ran. Reports name the campaign that
 * placed their call, so that they filter by it.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('outbound_calls')
    // The session's id, chosen before the call exists: the provider's id for it comes later.
    .addColumn('session_id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'integer', (c) => c.notNull().references('tenants.id').onDelete('cascade'))
    // No reference: a number removed while its call rings leaves the call to end as it will.
    .addColumn('number_id', 'integer', (c) => c.notNull())
    .addColumn('provider', 'text', (c) => c.notNull())
    .addColumn('plan_id', 'integer', (c) => c.notNull())
    // The version published when the call was placed, and its name: an unanswered call's report names them.
    .addColumn('plan_version', 'integer', (c) => c.notNull())
    .addColumn('plan_name', 'text', (c) => c.notNull())
    .addColumn('caller', 'text', (c) => c.notNull())
    .addColumn('called', 'text', (c) => c.notNull())
    // JSON map of text values.
    .addColumn('variables', 'text', (c) => c.notNull())
    .addColumn('machine_detection', 'integer', (c) => c.notNull())
    .addColumn('ring_timeout_s', 'integer', (c) => c.notNull())
    .addColumn('status_url', 'text')
    // No reference: campaigns are another migration's, and a removed campaign's calls stay reported.
    .addColumn('campaign_id', 'integer')
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('dial_status', 'text')
    .addColumn('answered_by', 'text')
    .addColumn('provider_call_id', 'text')
    .addColumn('created_time', 'text', (c) => c.notNull())
    .addColumn('updated_time', 'text', (c) => c.notNull())
    .addColumn('ended_time', 'text')
    .execute();
  await db.schema.createIndex('ix_outbound_calls__tenant_id__created_time').on('outbound_calls').columns(['tenant_id', 'created_time']).execute();
  // The licence counts the calls still ringing.
  await db.schema.createIndex('ix_outbound_calls__state').on('outbound_calls').column('state').execute();
  await db.schema.createIndex('ix_outbound_calls__campaign_id').on('outbound_calls').column('campaign_id').execute();
  await db.schema.alterTable('call_reports').addColumn('campaign_id', 'integer').execute();
  await db.schema.createIndex('ix_call_reports__tenant_id__campaign_id').on('call_reports').columns(['tenant_id', 'campaign_id']).execute();
}

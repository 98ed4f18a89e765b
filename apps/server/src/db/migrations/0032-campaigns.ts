import type { Kysely } from 'kysely';
import type { DialectName } from '../database.ts';
import { withId } from './0001-initial.ts';

/**
 * Issue 38: campaigns (docs/campaigns.md). A campaign, its contacts (one row per number: the row is
 * the contact's queue entry, claimed by one instance at a time), the rows of its lists that were not
 * imported, and the pacing slots that instances share: the next instant a call may start, per
 * campaign (its `calls_per_second`) and per provider account (the channel's own limit).
 */
export function up(dialect: DialectName) {
  return async (db: Kysely<unknown>): Promise<void> => {
    await withId(db.schema.createTable('campaigns'), dialect)
      .addColumn('tenant_id', 'integer', (c) => c.notNull().references('tenants.id').onDelete('cascade'))
      .addColumn('name', 'text', (c) => c.notNull())
      // Referenced: a plan, number or date range a campaign uses cannot be removed (record_in_use).
      .addColumn('plan_id', 'integer', (c) => c.notNull().references('visual_plans.id'))
      .addColumn('number_id', 'integer', (c) => c.notNull().references('numbers.id'))
      .addColumn('date_range_id', 'integer', (c) => c.references('date_ranges.id'))
      .addColumn('calls_per_second', 'double precision', (c) => c.notNull())
      .addColumn('max_concurrent', 'integer', (c) => c.notNull())
      // JSON: { busy, no_answer, failed, machine: { attempts, delay_min } }.
      .addColumn('retries', 'text', (c) => c.notNull())
      .addColumn('machine_detection', 'integer', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('started_time', 'text')
      .addColumn('finished_time', 'text')
      // The campaign's pacing slot (ISO 8601 with milliseconds): claimed with its contacts.
      .addColumn('next_dial_at', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('created_time', 'text', (c) => c.notNull())
      .addColumn('updated_time', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('ux_campaigns__tenant_id__name').unique().on('campaigns').columns(['tenant_id', 'name']).execute();
    await db.schema.createIndex('ix_campaigns__status').on('campaigns').column('status').execute();

    await withId(db.schema.createTable('campaign_contacts'), dialect)
      .addColumn('campaign_id', 'integer', (c) => c.notNull().references('campaigns.id').onDelete('cascade'))
      .addColumn('tenant_id', 'integer', (c) => c.notNull())
      .addColumn('line', 'integer', (c) => c.notNull())
      .addColumn('phone', 'text', (c) => c.notNull())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('time_zone', 'text')
      .addColumn('variables', 'text', (c) => c.notNull())
      .addColumn('state', 'text', (c) => c.notNull())
      .addColumn('last_outcome', 'text')
      .addColumn('attempts', 'integer', (c) => c.notNull())
      // JSON: retries used per outcome ({ "busy": 1 }).
      .addColumn('retries_used', 'text', (c) => c.notNull())
      .addColumn('last_session_id', 'text')
      .addColumn('last_attempt_time', 'text')
      .addColumn('next_attempt_time', 'text')
      // While in_progress: when the claim was made, and until when another instance must not recover it.
      .addColumn('claimed_at', 'text')
      .addColumn('lease_until', 'text')
      // Set while the upload that brings the row is under way (state 'staged'): cleared when it is all in, removed when it is refused.
      .addColumn('import_token', 'text')
      .addColumn('created_time', 'text', (c) => c.notNull())
      .addColumn('updated_time', 'text', (c) => c.notNull())
      .execute();
    // One row per number in a campaign: the database itself keeps a number from being queued twice.
    await db.schema.createIndex('ux_campaign_contacts__campaign_id__phone').unique().on('campaign_contacts').columns(['campaign_id', 'phone']).execute();
    // The dispatcher's claim: a campaign's pending contacts due first.
    await db.schema.createIndex('ix_campaign_contacts__campaign_id__state__next').on('campaign_contacts').columns(['campaign_id', 'state', 'next_attempt_time']).execute();
    await db.schema.createIndex('ix_campaign_contacts__last_session_id').on('campaign_contacts').column('last_session_id').execute();
    await db.schema.createIndex('ix_campaign_contacts__campaign_id__line').on('campaign_contacts').columns(['campaign_id', 'line']).execute();

    await withId(db.schema.createTable('campaign_invalid_rows'), dialect)
      .addColumn('campaign_id', 'integer', (c) => c.notNull().references('campaigns.id').onDelete('cascade'))
      .addColumn('tenant_id', 'integer', (c) => c.notNull())
      .addColumn('line', 'integer', (c) => c.notNull())
      .addColumn('reason', 'text', (c) => c.notNull())
      .addColumn('value', 'text', (c) => c.notNull())
      .addColumn('import_token', 'text')
      .addColumn('created_time', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('ix_campaign_contacts__import_token').on('campaign_contacts').column('import_token').execute();
    await db.schema.createIndex('ix_campaign_invalid_rows__import_token').on('campaign_invalid_rows').column('import_token').execute();
    await db.schema.createIndex('ix_campaign_invalid_rows__campaign_id__line').on('campaign_invalid_rows').columns(['campaign_id', 'line']).execute();

    // A provider account's slot ("twilio:<tenant>"), shared by every campaign that dials through it.
    await db.schema
      .createTable('campaign_pacing')
      .addColumn('account', 'text', (c) => c.primaryKey())
      .addColumn('next_dial_at', 'text', (c) => c.notNull())
      .execute();
  };
}

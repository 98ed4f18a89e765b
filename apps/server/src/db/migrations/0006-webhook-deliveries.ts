import type { Kysely } from 'kysely';
import type { DialectName } from '../database.ts';
import { withId } from './0001-initial.ts';

export function up(dialect: DialectName) {
  return async (db: Kysely<unknown>): Promise<void> => {
    // Plan webhook events, written before anything is sent so that they survive a restart and any
    // instance can send them (modules/plan-webhook).
    await withId(db.schema.createTable('webhook_deliveries'), dialect)
      // A removed tenant's queue goes with it: nobody is left to sign for or to read the log.
      .addColumn('tenant_id', 'integer', (c) => c.notNull().references('tenants.id').onDelete('cascade'))
      // No reference: plans come with a later migration, and a delivery outlives its plan.
      .addColumn('plan_id', 'integer', (c) => c.notNull())
      .addColumn('url', 'text', (c) => c.notNull())
      .addColumn('event', 'text', (c) => c.notNull())
      .addColumn('payload', 'text', (c) => c.notNull())
      .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('next_attempt_time', 'text', (c) => c.notNull())
      .addColumn('lease_until', 'text')
      .addColumn('last_error', 'text')
      .addColumn('last_status', 'integer')
      .addColumn('created_time', 'text', (c) => c.notNull())
      .addColumn('delivered_time', 'text')
      .execute();
    // What every dispatcher asks every few seconds: the pending deliveries that are due.
    await db.schema
      .createIndex('ix_webhook_deliveries__status__next_attempt_time')
      .on('webhook_deliveries')
      .columns(['status', 'next_attempt_time'])
      .execute();
    await db.schema.createIndex('ix_webhook_deliveries__tenant_id').on('webhook_deliveries').column('tenant_id').execute();

    // One signing key per tenant, encrypted with the master key like integration tokens.
    await db.schema
      .createTable('webhook_secrets')
      .addColumn('tenant_id', 'integer', (c) => c.primaryKey().references('tenants.id').onDelete('cascade'))
      .addColumn('secret', 'text', (c) => c.notNull())
      .addColumn('created_time', 'text', (c) => c.notNull())
      .execute();
  };
}

import { type CreateTableBuilder, type Kysely, sql } from 'kysely';
import type { DialectName } from '../database.ts';

/**
 * The statistics' rollups (issue 17, db/stats-rollups.ts): counters per tenant, plan
 * and UTC hour, kept as sessions end; filled from the reports already stored by 0023.
 */
export function up(dialect: DialectName) {
  return async (db: Kysely<unknown>): Promise<void> => {
    // Hours since 1970 (integers: a day is a division away, see stats.service.ts). Sums of
    // durations over an hour of a busy plan pass 2^31 seconds.
    const durationType = dialect === 'postgres' ? 'bigint' : 'integer';
    // On SQLite the rows are stored in their key's order (WITHOUT ROWID), so that a period is one
    // range of the table rather than an index range and a lookup per row: a year of a tenant's
    // hours is 175,000 rows.
    const clustered = <T extends string>(table: CreateTableBuilder<T, never>) => (dialect === 'sqlite' ? table.modifyEnd(sql`without rowid`) : table);
    // Keyed tenant first: a tenant's period reads one range of the key; the administrator's, of every tenant, the hour index.
    // stats_tenants: every plan together, the dashboard's figures unless it names plans.
    const counters = <T extends string, C extends string>(table: CreateTableBuilder<T, C>) =>
      table
        .addColumn('sessions', 'integer', (c) => c.notNull())
        .addColumn('voice', 'integer', (c) => c.notNull())
        .addColumn('chat', 'integer', (c) => c.notNull())
        .addColumn('routed', 'integer', (c) => c.notNull())
        .addColumn('retained', 'integer', (c) => c.notNull())
        .addColumn('abandoned', 'integer', (c) => c.notNull())
        .addColumn('failed', 'integer', (c) => c.notNull())
        .addColumn('expired', 'integer', (c) => c.notNull())
        .addColumn('duration_s', durationType, (c) => c.notNull());
    await db.schema
      .createTable('stats_tenants')
      .addColumn('tenant_id', 'integer', (c) => c.notNull().references('tenants.id').onDelete('cascade'))
      .addColumn('hour', 'integer', (c) => c.notNull())
      .$call(counters)
      .addPrimaryKeyConstraint('pk_stats_tenants', ['tenant_id', 'hour'])
      .$call(clustered)
      .execute();
    await db.schema.createIndex('ix_stats_tenants__hour').on('stats_tenants').column('hour').execute();
    await db.schema
      .createTable('stats_sessions')
      .addColumn('tenant_id', 'integer', (c) => c.notNull().references('tenants.id').onDelete('cascade'))
      .addColumn('hour', 'integer', (c) => c.notNull())
      // No foreign key to visual_plans: a removed plan keeps its history, as its reports do.
      .addColumn('plan_id', 'integer', (c) => c.notNull())
      .$call(counters)
      .addPrimaryKeyConstraint('pk_stats_sessions', ['tenant_id', 'hour', 'plan_id'])
      .$call(clustered)
      .execute();
    await db.schema.createIndex('ix_stats_sessions__hour').on('stats_sessions').column('hour').execute();

    // Keyed plan first: the plan's statistics read one range of the key. Per hour, and again per
    // UTC day (days since 1970): a long period reads its whole days from the second, its ends from the first.
    const perNode = (table: string, bucket: 'hour' | 'day') =>
      db.schema
        .createTable(table)
        .addColumn('plan_id', 'integer', (c) => c.notNull())
        .addColumn(bucket, 'integer', (c) => c.notNull())
        .addColumn('tenant_id', 'integer', (c) => c.notNull().references('tenants.id').onDelete('cascade'))
        .addColumn('node_plan_id', 'integer', (c) => c.notNull())
        .addColumn('node_id', 'text', (c) => c.notNull());
    for (const bucket of ['hour', 'day'] as const) {
      const suffix = bucket === 'hour' ? '' : '_days';
      const nodeKeys = ['plan_id', bucket, 'tenant_id', 'node_plan_id', 'node_id'] as const;
      await perNode(`stats_nodes${suffix}`, bucket)
        .addColumn('entered', 'integer', (c) => c.notNull())
        .addColumn('ended', 'integer', (c) => c.notNull())
        .addPrimaryKeyConstraint(`pk_stats_nodes${suffix}`, [...nodeKeys])
        .$call(clustered)
        .execute();
      await perNode(`stats_digits${suffix}`, bucket)
        .addColumn('digits', 'text', (c) => c.notNull())
        .addColumn('count', 'integer', (c) => c.notNull())
        .addPrimaryKeyConstraint(`pk_stats_digits${suffix}`, [...nodeKeys, 'digits'])
        .$call(clustered)
        .execute();
    }

    // Filled from the stored reports by 0023, once the rollups have every column they count.
  };
}

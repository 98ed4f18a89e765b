import type { Kysely } from 'kysely';
import type { DialectName } from '../database.ts';
import { withId } from './0001-initial.ts';

/**
 * Sessions of live calls and chats, the events each has taken (for deduplication), the call
 * reports they become, and the per-tenant, per-day protocol counters. docs/sessions.md.
 */
export function up(dialect: DialectName) {
  return async (db: Kysely<unknown>): Promise<void> => {
    // The id is chosen by the channel (a call SID, a chat's id, a UUID), so any instance can find
    // the session of the next request without a lookup table.
    await db.schema
      .createTable('sessions')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('tenant_id', 'integer', (c) => c.notNull().references('tenants.id'))
      // No foreign key to visual_plans: removing a plan must not break the history of its calls.
      .addColumn('plan_id', 'integer', (c) => c.notNull())
      .addColumn('plan_version', 'integer', (c) => c.notNull())
      // 1 when the session runs the plan's draft (the simulator), 0 for a published version.
      .addColumn('is_draft', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('channel', 'text', (c) => c.notNull())
      .addColumn('provider', 'text', (c) => c.notNull())
      .addColumn('direction', 'text', (c) => c.notNull())
      .addColumn('caller', 'text', (c) => c.notNull())
      .addColumn('called', 'text', (c) => c.notNull())
      .addColumn('source_ip', 'text')
      // waiting | ended; a copy of the engine session's status, for the sweeper and counts.
      .addColumn('status', 'text', (c) => c.notNull())
      // The engine session (JSON): the truth; the other columns are copies for queries.
      .addColumn('state', 'text', (c) => c.notNull())
      // Grows by one with every event stored; a turn is written only over the revision it read.
      .addColumn('revision', 'integer', (c) => c.notNull())
      .addColumn('is_test', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('last_activity_time', 'text', (c) => c.notNull())
      // Chats that wait: when the plan's session_timeout_min of silence runs out.
      .addColumn('timeout_time', 'text')
      .addColumn('created_time', 'text', (c) => c.notNull())
      .addColumn('updated_time', 'text', (c) => c.notNull())
      .addColumn('ended_time', 'text')
      .execute();
    await db.schema.createIndex('ix_sessions__status__timeout_time').on('sessions').columns(['status', 'timeout_time']).execute();
    await db.schema.createIndex('ix_sessions__tenant_id__status').on('sessions').columns(['tenant_id', 'status']).execute();

    // Every event a session took, by the id its channel gave it: the same event delivered again
    // answers what was stored instead of running again.
    await withId(db.schema.createTable('session_events'), dialect)
      .addColumn('session_id', 'text', (c) => c.notNull().references('sessions.id').onDelete('cascade'))
      .addColumn('event_id', 'text', (c) => c.notNull())
      // The session's revision this event produced.
      .addColumn('revision', 'integer', (c) => c.notNull())
      // JSON: the turn's outcome (actions, blocks entered, status), as answered then.
      .addColumn('outcome', 'text', (c) => c.notNull())
      .addColumn('created_time', 'text', (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex('ux_session_events__session_id__event_id')
      .unique()
      .on('session_events')
      .columns(['session_id', 'event_id'])
      .execute();

    // Spec section 3, "Call report": one per ended session, read-only through /reports.
    await withId(db.schema.createTable('call_reports'), dialect)
      .addColumn('tenant_id', 'integer', (c) => c.notNull().references('tenants.id'))
      .addColumn('session_id', 'text', (c) => c.notNull())
      .addColumn('plan_id', 'integer', (c) => c.notNull())
      .addColumn('plan_name', 'text', (c) => c.notNull())
      .addColumn('plan_version', 'integer', (c) => c.notNull())
      .addColumn('channel', 'text', (c) => c.notNull())
      .addColumn('provider', 'text', (c) => c.notNull())
      .addColumn('direction', 'text', (c) => c.notNull())
      .addColumn('caller', 'text', (c) => c.notNull())
      .addColumn('called', 'text', (c) => c.notNull())
      .addColumn('source_ip', 'text')
      .addColumn('protocol', 'text')
      // Where the session was when it ended: the drop-off statistics count by it.
      .addColumn('last_node_plan_id', 'integer')
      .addColumn('last_node_id', 'text')
      .addColumn('last_node_type', 'text')
      // JSON: every block entered, with times and exits; every key entry per menu.
      .addColumn('nodes', 'text', (c) => c.notNull())
      .addColumn('pressed_digits', 'text', (c) => c.notNull())
      .addColumn('hangup_cause', 'text')
      .addColumn('disposition', 'text')
      .addColumn('dial_status', 'text')
      // JSON or null: why the engine stopped the session; the recording and its analyses.
      .addColumn('failure', 'text')
      .addColumn('recording', 'text')
      .addColumn('variables', 'text', (c) => c.notNull())
      .addColumn('is_test', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('start_time', 'text', (c) => c.notNull())
      .addColumn('end_time', 'text', (c) => c.notNull())
      .addColumn('duration_s', 'integer', (c) => c.notNull())
      .addColumn('created_time', 'text', (c) => c.notNull())
      .addColumn('updated_time', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('ux_call_reports__session_id').unique().on('call_reports').column('session_id').execute();
    // The report list's default order, and the dashboard's periods.
    await db.schema.createIndex('ix_call_reports__tenant_id__start_time').on('call_reports').columns(['tenant_id', 'start_time']).execute();
    await db.schema.createIndex('ix_call_reports__plan_id__start_time').on('call_reports').columns(['plan_id', 'start_time']).execute();

    // Protocols are `YYYYMMDD-NNNNNN`: one counter per tenant and (UTC) day, raised by an upsert.
    await withId(db.schema.createTable('protocol_counters'), dialect)
      .addColumn('tenant_id', 'integer', (c) => c.notNull().references('tenants.id').onDelete('cascade'))
      .addColumn('day', 'text', (c) => c.notNull())
      .addColumn('value', 'integer', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('ux_protocol_counters__tenant_id__day').unique().on('protocol_counters').columns(['tenant_id', 'day']).execute();
  };
}

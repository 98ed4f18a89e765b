/**
 * Reports by the hundred thousand, for the export and retention tests and bench/reports: one
 * INSERT … SELECT over a recursive count, on SQLite and PostgreSQL alike, instead of a row at a
 * time. Row i (1-based) starts i seconds before `newest`, lasts i % 600 seconds, and cycles
 * through the dispositions; its session id is `<prefix>-<i>`.
 */
import { type Kysely, sql } from 'kysely';
import type { DialectName } from '../src/db/database.ts';
import type { Database } from '../src/db/schema.ts';

export const seededDispositions = ['routed', 'retained', 'abandoned', 'failed'] as const;

export interface SeedOptions {
  tenantId: number;
  count: number;
  /** The first row's start; the others go back a second each. */
  newest: string;
  prefix: string;
  planId?: number;
  isTest?: boolean;
}

/**
 * The rows are made in chunks, so that one statement never holds a million rows' worth of work, and
 * each stays well inside the server's 5-second statement timeout on a loaded machine (50,000 rows a
 * statement passed it on PostgreSQL while CI's other lane ran beside it).
 */
const CHUNK = 10_000;

export async function seedReports(db: Kysely<Database>, dialect: DialectName, options: SeedOptions): Promise<void> {
  const planId = options.planId ?? 7;
  for (let first = 1; first <= options.count; first += CHUNK) {
    const last = Math.min(options.count, first + CHUNK - 1);
    // ISO text times, as the report writer stores them.
    const startTime =
      dialect === 'postgres'
        ? sql`to_char((${options.newest}::timestamptz - i * interval '1 second') at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`
        : sql`strftime('%Y-%m-%dT%H:%M:%fZ', ${options.newest}, '-' || i || ' seconds')`;
    const endTime =
      dialect === 'postgres'
        ? sql`to_char((${options.newest}::timestamptz - i * interval '1 second' + (i % 600) * interval '1 second') at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`
        : sql`strftime('%Y-%m-%dT%H:%M:%fZ', ${options.newest}, '-' || (i - i % 600) || ' seconds')`;
    const disposition = sql`case i % 4 when 0 then 'routed' when 1 then 'retained' when 2 then 'abandoned' else 'failed' end`;
    const text = (expression: ReturnType<typeof sql>) => (dialect === 'postgres' ? sql`(${expression})::text` : sql`(${expression})`);
    await sql`
      with recursive n(i) as (select cast(${first} as integer) union all select i + 1 from n where i < ${last})
      insert into call_reports (tenant_id, session_id, plan_id, plan_name, plan_version, channel, provider, direction, caller, called,
        source_ip, protocol, last_node_plan_id, last_node_id, last_node_type, nodes, pressed_digits, hangup_cause, disposition, dial_status,
        failure, recording, variables, is_test, start_time, end_time, duration_s, created_time, updated_time)
      select ${options.tenantId}, ${options.prefix} || '-' || ${text(sql`i`)}, ${planId}, 'Seeded plan', 1,
        case when i % 5 = 0 then 'chat' else 'voice' end, case when i % 5 = 0 then 'webchat' else 'twilio' end, 'inbound',
        '+5511' || ${text(sql`900000000 + i`)}, '+551130000000', null, null, ${planId}, 'menu', 'voice_menu',
        '[{"plan_id":' || ${text(sql`${planId}`)} || ',"node_id":"start","type":"start","at":"2026-01-01T00:00:00.000Z","exit":"next"},{"plan_id":' || ${text(sql`${planId}`)} || ',"node_id":"menu","type":"voice_menu","at":"2026-01-01T00:00:00.000Z","exit":null}]',
        '[{"plan_id":' || ${text(sql`${planId}`)} || ',"node_id":"menu","digits":"' || ${text(sql`i % 10`)} || '","at":"2026-01-01T00:00:00.000Z"}]',
        'normal_clearing', ${disposition}, null, null, null, '{}', ${options.isTest ? 1 : 0},
        ${startTime}, ${endTime}, i % 600, ${startTime}, ${startTime}
      from n`.execute(db);
  }
}

/**
 * The stored floor's PostgreSQL store (twilio-stored-floor.ts): `pg` (the project's driver), one
 * pool of 10 connections as the app's, named statements, and a round trip for each read and each
 * write, as the app sends them there (modules/sessions/sessions.repository.ts, db/stats-rollups.ts):
 * the start's check and licence count; the session's insert with its event; a turn's read; a
 * turn's row over the revision read with its event (a data-modifying CTE, its own transaction);
 * the last turn's the same with the report and the rollups (44 rows) in that one statement. Twelve
 * statements a call, where the app sends 14 under load (its read cache's pings besides).
 *
 * The statements go through db/pg-statements.ts' `runNamed` (Bind, Execute, Sync without `pg`'s
 * `Query`), the least a statement costs on this stack, the app's own way since issue 40;
 * BENCH_FLOOR_PG_QUERY=1 sends them through `pg`'s `pool.query({ name, text, values })` instead.
 */
import pg from 'pg';
import { runNamed } from '../../apps/server/src/db/pg-statements.ts';
import { type EndRows, type FloorStore, raise, type RollupRows, type TurnWrite } from './twilio-stored-floor.ts';

/** The rows as a JSON array of objects keyed by `columns`, written as text (no object a row). */
function recordsJson(columns: readonly string[], rows: ReadonlyArray<ReadonlyArray<string | number>>): string {
  const keys = columns.map((column, index) => `${index === 0 ? '{' : ','}"${column}":`);
  return `[${rows.map((row) => `${row.map((value, index) => keys[index]! + (typeof value === 'number' ? String(value) : JSON.stringify(value))).join('')}}`).join(',')}]`;
}

const rollupCte = ({ table, keys, counters }: RollupRows, parameter: number) => {
  const list = [...keys, ...counters].map((column) => `"${column}"`).join(', ');
  return (
    `insert into "${table}" (${list}) select ${list} from json_populate_recordset(null::"${table}", $${parameter}::json) ` +
    `where exists (select 1 from "report") on conflict (${keys.map((key) => `"${key}"`).join(', ')}) do update set ${raise(table, counters)}`
  );
};

const TURNED =
  `"turned" as (update sessions set revision = $2, status = $3, state = $4, last_activity_time = $5, updated_time = $5, ended_time = $6 ` +
  `where id = $1 and revision = $2 - 1 returning id, revision, updated_time), ` +
  `"event" as (insert into session_events (session_id, event_id, revision, outcome, created_time) select id, $7, revision, $8, updated_time from "turned")`;
const TURN = `with ${TURNED} select count(*)::integer as turned from "turned"`;

/** `url`: a copy of the database the real app migrated and seeded. */
export async function openPostgresStore(url: string): Promise<FloorStore> {
  const pool = new pg.Pool({ connectionString: url, max: 10 });
  const run = process.env.BENCH_FLOOR_PG_QUERY === '1' ? (text: string, name: string, values: unknown[]) => pool.query({ name, text, values }) : (text: string, name: string, values: unknown[]) => runNamed(pool, text, name, values);
  const tenantId = (await pool.query<{ id: number }>('select id from tenants order by id desc limit 1')).rows[0]!.id;
  const planId = (await pool.query<{ id: number }>('select id from visual_plans where tenant_id = $1 order by id limit 1', [tenantId])).rows[0]?.id ?? 1;
  const texts = {
    startCheck:
      `select (select outcome from session_events where session_id = $1 and event_id = 'start') as outcome, ` +
      `(select count(*) from sessions where status = 'waiting' and is_test = 0 and provider <> 'webchat')::integer as running`,
    start:
      `with "started" as (insert into sessions (id, tenant_id, plan_id, plan_version, is_draft, channel, provider, direction, caller, called, source_ip, status, state, revision, ` +
      `is_test, last_activity_time, timeout_time, created_time, updated_time, ended_time, customer) ` +
      `values ($1, $2, $3, 1, 0, 'voice', 'twilio', 'inbound', $4, $5, '127.0.0.1', 'waiting', $6, 1, 0, $7, null, $7, $7, null, null) returning id, revision, created_time) ` +
      `insert into session_events (session_id, event_id, revision, outcome, created_time) select id, 'start', revision, $8, created_time from "started"`,
    readTurn:
      'select sessions.state, sessions.revision, session_events.outcome from sessions ' +
      'left join session_events on session_events.session_id = sessions.id and session_events.event_id = $1 where sessions.id = $2',
    touch:
      `with "turned" as (update sessions set revision = $2, updated_time = $3 where id = $1 and revision = $2 - 1 returning id, revision, updated_time) ` +
      `insert into session_events (session_id, event_id, revision, outcome, created_time) select id, $4, revision, $5, updated_time from "turned"`,
  };
  /** The end's text: its rollups' shape is the same for every call of the bench, so one text and one name. */
  let end: { text: string; columns: string[] } | undefined;
  const endOf = ({ report, rollups }: EndRows) => {
    if (!end) {
      const columns = Object.keys(report);
      const list = columns.map((column) => `"${column}"`).join(', ');
      const ctes = [
        TURNED,
        `"report" as (insert into call_reports (${list}) select ${list} from json_populate_record(null::call_reports, $9::json) where exists (select 1 from "turned") returning id)`,
        ...rollups.map((rollup, index) => `"rollup${index}" as (${rollupCte(rollup, 10 + index)})`),
      ];
      end = { text: `with ${ctes.join(', ')} select count(*)::integer as turned from "turned"`, columns };
    }
    return end;
  };
  const turnValues = (turn: TurnWrite) => [turn.sid, turn.readRevision + 1, turn.status, turn.state, turn.now, turn.status === 'ended' ? turn.now : null, turn.eventId, turn.outcome];
  return {
    tenantId,
    planId,
    startCheck: async (sid) => (await run(texts.startCheck, 'floor_start_check', [sid])).rows[0] as { outcome: string | null; running: number },
    storeStart: async ({ sid, caller, called, state, outcome, now }) => {
      await run(texts.start, 'floor_start', [sid, tenantId, planId, caller, called, state, now, outcome]);
    },
    readTurn: async (eventId, sid) => (await run(texts.readTurn, 'floor_read', [eventId, sid])).rows[0] as { state: string; revision: number; outcome: string | null } | undefined,
    storeTurn: async (turn, endRows) => {
      if (!endRows) return ((await run(TURN, 'floor_turn', turnValues(turn))).rows[0] as { turned: number }).turned > 0;
      const { text } = endOf(endRows);
      const values = [...turnValues(turn), JSON.stringify(endRows.report), ...endRows.rollups.map((rollup) => recordsJson([...rollup.keys, ...rollup.counters], rollup.rows))];
      return ((await run(text, 'floor_end', values)).rows[0] as { turned: number }).turned > 0;
    },
    touch: async (turn) => (await run(texts.touch, 'floor_touch', [turn.sid, turn.readRevision + 1, turn.now, turn.eventId, turn.outcome])).rowCount === 1,
    close: () => pool.end(),
  };
}

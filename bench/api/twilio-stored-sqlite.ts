/**
 * The stored floor's SQLite store (twilio-stored-floor.ts): better-sqlite3's statements, prepared
 * once, a turn's writes in one transaction (each statement a few microseconds in process, not a
 * round trip), the end's report and rollups in the last turn's.
 */
import type SQLite from 'better-sqlite3';
import { openSqlite } from './floor.ts';
import { type EndRows, type FloorStore, raise, type RollupRows, type TurnWrite } from './twilio-stored-floor.ts';

/** `file`: a copy of the SQLite database the real app migrated and seeded. */
export function openSqliteStore(file: string): FloorStore {
  const sqlite = openSqlite(file);
  // The app's foreign keys too: the stored rows are checked as the app's are.
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('busy_timeout = 5000');
  const tenantId = (sqlite.prepare('SELECT id FROM tenants ORDER BY id DESC LIMIT 1').get() as { id: number }).id;
  const planId = (sqlite.prepare('SELECT id FROM visual_plans WHERE tenant_id = ? ORDER BY id LIMIT 1').get(tenantId) as { id: number } | undefined)?.id ?? 1;
  const statements = {
    startCheck: sqlite.prepare(
      `SELECT (SELECT outcome FROM session_events WHERE session_id = ? AND event_id = 'start') AS outcome,
              (SELECT count(*) FROM sessions WHERE status = 'waiting' AND is_test = 0 AND provider <> 'webchat') AS running`,
    ),
    insertSession: sqlite.prepare(
      `INSERT INTO sessions (id, tenant_id, plan_id, plan_version, is_draft, channel, provider, direction, caller, called, source_ip, status, state, revision,
         is_test, last_activity_time, timeout_time, created_time, updated_time, ended_time, customer)
       VALUES (?, ?, ?, 1, 0, 'voice', 'twilio', 'inbound', ?, ?, '127.0.0.1', 'waiting', ?, 1, 0, ?, NULL, ?, ?, NULL, NULL)`,
    ),
    readTurn: sqlite.prepare(
      `SELECT sessions.state, sessions.revision, session_events.outcome FROM sessions
       LEFT JOIN session_events ON session_events.session_id = sessions.id AND session_events.event_id = ? WHERE sessions.id = ?`,
    ),
    updateSession: sqlite.prepare(
      'UPDATE sessions SET revision = ?, status = ?, state = ?, last_activity_time = ?, updated_time = ?, ended_time = ? WHERE id = ? AND revision = ?',
    ),
    touchSession: sqlite.prepare('UPDATE sessions SET revision = ?, updated_time = ? WHERE id = ? AND revision = ?'),
    insertEvent: sqlite.prepare('INSERT INTO session_events (session_id, event_id, revision, outcome, created_time) VALUES (?, ?, ?, ?, ?)'),
  };
  let insertReport: SQLite.Statement | undefined;
  /** A multi-row upsert a table and row count (the bench's call has always the same): prepared the first time. */
  const upserts = new Map<string, SQLite.Statement>();
  const upsertOf = ({ table, keys, counters, rows }: RollupRows) => {
    const id = `${table}:${rows.length}`;
    let statement = upserts.get(id);
    if (!statement) {
      const columns = [...keys, ...counters];
      const row = `(${columns.map(() => '?').join(', ')})`;
      statement = sqlite.prepare(
        `INSERT INTO "${table}" (${columns.map((column) => `"${column}"`).join(', ')}) VALUES ${Array(rows.length).fill(row).join(', ')} ` +
          `ON CONFLICT (${keys.map((key) => `"${key}"`).join(', ')}) DO UPDATE SET ${raise(table, counters)}`,
      );
      upserts.set(id, statement);
    }
    return statement;
  };
  function storeEnd({ report, rollups }: EndRows): void {
    insertReport ??= sqlite.prepare(
      `INSERT INTO call_reports (${Object.keys(report).join(', ')}) VALUES (${Object.keys(report).map((column) => `@${column}`).join(', ')})`,
    );
    insertReport.run(report);
    for (const rollup of rollups) if (rollup.rows.length > 0) upsertOf(rollup).run(rollup.rows.flat());
  }
  const storeTurn = sqlite.transaction((turn: TurnWrite, end: EndRows | undefined): boolean => {
    const revision = turn.readRevision + 1;
    const ended = turn.status === 'ended' ? turn.now : null;
    if (statements.updateSession.run(revision, turn.status, turn.state, turn.now, turn.now, ended, turn.sid, turn.readRevision).changes === 0) return false;
    statements.insertEvent.run(turn.sid, turn.eventId, revision, turn.outcome, turn.now);
    if (end) storeEnd(end);
    return true;
  });
  return {
    tenantId,
    planId,
    startCheck: (sid) => statements.startCheck.get(sid) as { outcome: string | null; running: number },
    storeStart: sqlite.transaction(({ sid, caller, called, state, outcome, now }: Parameters<FloorStore['storeStart']>[0]) => {
      statements.insertSession.run(sid, tenantId, planId, caller, called, state, now, now, now);
      statements.insertEvent.run(sid, 'start', 1, outcome, now);
    }),
    readTurn: (eventId, sid) => statements.readTurn.get(eventId, sid) as { state: string; revision: number; outcome: string | null } | undefined,
    storeTurn,
    touch: sqlite.transaction((turn: Omit<TurnWrite, 'status' | 'state'>): boolean => {
      if (statements.touchSession.run(turn.readRevision + 1, turn.now, turn.sid, turn.readRevision).changes === 0) return false;
      statements.insertEvent.run(turn.sid, turn.eventId, turn.readRevision + 1, turn.outcome, turn.now);
      return true;
    }),
    close: () => void sqlite.close(),
  };
}

/**
 * The Twilio call's stored floor (bench/README.md, "Issue 40: the stored floor"): the least this
 * stack does for a call when it stores what the product's contract says a call stores, with no
 * engine, no framework of ours and every statement prepared once on better-sqlite3:
 *
 * - every turn durable before it is answered, so any instance takes the next one (docs/sessions.md):
 *   the session's row read with the event's stored outcome (a retried callback answers from it), then
 *   the row written over the revision read and the event inserted, in one transaction;
 * - the start's check of a repeat and the licence's count of running sessions, one read;
 * - at the end, the report and the statistics' counters (the same 44 rows of six tables), in the
 *   transaction of the last turn, as the dashboard needs them.
 *
 * It runs on a database the real app migrated (the same tables, indexes and foreign keys) and writes
 * rows of the app's sizes: the state grows by the blocks a turn entered (3.5 KB at the end of the
 * bench's call, as the app's), each event's outcome holds the turn's answer and path (0.5 to 1 KB).
 * `bench/api/floor.ts`' `startTwilioFloor` stays the floor of the request alone: one small upsert a turn.
 */
import formbody from '@fastify/formbody';
import type SQLite from 'better-sqlite3';
import Fastify, { type FastifyInstance } from 'fastify';
import twilio from 'twilio';
import { openSqlite } from './floor.ts';

type Form = Record<string, string>;

/** The blocks the bench's IVR enters in each turn (bench/channels/ivr-plan.ts), with the exit each takes. */
const TURN_BLOCKS: Array<Array<{ node_id: string; type: string; exit: string | null }>> = [
  [
    { node_id: 'start', type: 'start', exit: 'next' },
    { node_id: 'hours', type: 'date_range', exit: 'in_hours' },
    { node_id: 'welcome', type: 'play_message', exit: 'next' },
    { node_id: 'set', type: 'variable', exit: 'next' },
    { node_id: 'known', type: 'condition', exit: 'true' },
    { node_id: 'greet', type: 'play_message', exit: 'next' },
    { node_id: 'menu', type: 'voice_menu', exit: null },
  ],
  [
    { node_id: 'returning', type: 'condition', exit: 'true' },
    { node_id: 'sales_menu', type: 'voice_menu', exit: null },
  ],
  [
    { node_id: 'team', type: 'variable', exit: 'next' },
    { node_id: 'queue', type: 'play_message', exit: 'next' },
    { node_id: 'sales', type: 'destination', exit: null },
  ],
  [
    { node_id: 'sorry', type: 'play_message', exit: 'next' },
    { node_id: 'survey', type: 'voice_menu', exit: null },
  ],
  [
    { node_id: 'rating', type: 'variable', exit: 'next' },
    { node_id: 'happy', type: 'condition', exit: 'true' },
    { node_id: 'thanks_good', type: 'play_message', exit: 'next' },
    { node_id: 'bye', type: 'hangup', exit: null },
  ],
];
const LAST_STEP = TURN_BLOCKS.length - 1;

interface PathEntry {
  plan_id: number;
  node_id: string;
  type: string;
  at: string;
  exit: string | null;
}

/** The floor's session: what it stores as the state, of the app's size. */
interface FloorSession {
  id: string;
  tenant_id: number;
  plan_id: number;
  caller: string;
  called: string;
  step: number;
  started_at: string;
  variables: Record<string, string | number>;
  path: PathEntry[];
  digits: Array<{ node_id: string; digits: string; at: string }>;
  /** What the app's session also holds (the plan's reference, prompts said, the protocol…): the rest of its 3.5 KB. */
  said: string[];
}

function openStore(file: string) {
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
      `SELECT sessions.*, session_events.outcome FROM sessions
       LEFT JOIN session_events ON session_events.session_id = sessions.id AND session_events.event_id = ? WHERE sessions.id = ?`,
    ),
    updateSession: sqlite.prepare(
      'UPDATE sessions SET revision = ?, status = ?, state = ?, last_activity_time = ?, updated_time = ?, ended_time = ? WHERE id = ? AND revision = ?',
    ),
    touchSession: sqlite.prepare('UPDATE sessions SET revision = ?, updated_time = ? WHERE id = ? AND revision = ?'),
    insertEvent: sqlite.prepare('INSERT INTO session_events (session_id, event_id, revision, outcome, created_time) VALUES (?, ?, ?, ?, ?)'),
    insertReport: sqlite.prepare(
      `INSERT INTO call_reports (tenant_id, session_id, plan_id, plan_name, plan_version, channel, provider, direction, caller, called, source_ip, protocol,
         last_node_plan_id, last_node_id, last_node_type, nodes, pressed_digits, hangup_cause, disposition, dial_status, failure, recording, variables,
         is_test, start_time, end_time, duration_s, created_time, updated_time, goal)
       VALUES (?, ?, ?, 'Bench IVR', 1, 'voice', 'twilio', 'inbound', ?, ?, '127.0.0.1', ?, ?, 'bye', 'hangup', ?, ?, 'normal_clearing', 'retained', 'busy',
         NULL, NULL, ?, 0, ?, ?, ?, ?, ?, NULL)`,
    ),
  };
  const sessionCounters = '"sessions", "voice", "chat", "routed", "retained", "abandoned", "failed", "expired", "missed", "duration_s"';
  const raise = (table: string, columns: string) =>
    columns
      .split(', ')
      .map((column) => `${column} = "${table}".${column} + excluded.${column}`)
      .join(', ');
  const rowsOf = (count: number, width: number) => Array(count).fill(`(${Array(width).fill('?').join(', ')})`).join(', ');
  const nodeRows = TURN_BLOCKS.flat().length;
  const rollups = {
    tenants: sqlite.prepare(
      `INSERT INTO stats_tenants ("tenant_id", "hour", ${sessionCounters}) VALUES ${rowsOf(1, 12)} ON CONFLICT ("tenant_id", "hour") DO UPDATE SET ${raise('stats_tenants', sessionCounters)}`,
    ),
    sessions: sqlite.prepare(
      `INSERT INTO stats_sessions ("tenant_id", "hour", "plan_id", ${sessionCounters}) VALUES ${rowsOf(1, 13)} ON CONFLICT ("tenant_id", "hour", "plan_id") DO UPDATE SET ${raise('stats_sessions', sessionCounters)}`,
    ),
    ...Object.fromEntries(
      (['hour', 'day'] as const).flatMap((bucket) => {
        const suffix = bucket === 'day' ? '_days' : '';
        return [
          [
            `nodes${suffix}`,
            sqlite.prepare(
              `INSERT INTO stats_nodes${suffix} ("plan_id", "${bucket}", "tenant_id", "node_plan_id", "node_id", "entered", "ended") VALUES ${rowsOf(nodeRows, 7)}
               ON CONFLICT ("plan_id", "${bucket}", "tenant_id", "node_plan_id", "node_id") DO UPDATE SET ${raise(`stats_nodes${suffix}`, '"entered", "ended"')}`,
            ),
          ],
          [
            `digits${suffix}`,
            sqlite.prepare(
              `INSERT INTO stats_digits${suffix} ("plan_id", "${bucket}", "tenant_id", "node_plan_id", "node_id", "digits", "count") VALUES ${rowsOf(3, 7)}
               ON CONFLICT ("plan_id", "${bucket}", "tenant_id", "node_plan_id", "node_id", "digits") DO UPDATE SET ${raise(`stats_digits${suffix}`, '"count"')}`,
            ),
          ],
        ];
      }),
    ),
  } as Record<string, SQLite.Statement>;
  return { sqlite, tenantId, planId, statements, rollups };
}

/** `file`: the SQLite database the real app migrated and seeded; `publicUrl` and `token`: what the requests are signed with. */
export function startTwilioStoredFloor(file: string, publicUrl: string, token: string): FastifyInstance {
  const { sqlite, tenantId, planId, statements, rollups } = openStore(file);
  const app = Fastify();
  app.addHook('onClose', () => sqlite.close());
  void app.register(formbody);
  const hooks = '/api/v1/hooks/twilio/';
  const escapeXml = (text: string) => text.replaceAll('&', '&amp;').replaceAll('"', '&quot;').replaceAll('<', '&lt;');
  const actionUrl = (sid: string, step: number) => escapeXml(`${publicUrl}${hooks}voice?session=${encodeURIComponent(sid)}&step=${step}`);
  const say = (text: string) => `<Say language="en-US">${text}</Say>`;
  const gather = (sid: string, step: number, text: string) => `<Gather action="${actionUrl(sid, step)}" input="dtmf" numDigits="1" timeout="5">${say(text)}</Gather>`;
  /** The answer of each step, written as text (as the app writes its TwiML: channels/twilio/twiml-xml.ts). */
  function answer(sid: string, step: number): string {
    const verbs = [
      () => say('Welcome.') + gather(sid, 1, 'Press 1 for sales.'),
      () => gather(sid, 2, 'Press 2 to talk to us.'),
      () => `${say('Connecting.')}<Dial action="${actionUrl(sid, 3)}" timeout="30"><Number>+551140000001</Number></Dial>`,
      () => say('Everyone is busy.') + gather(sid, 4, 'Rate us from 1 to 5.'),
      () => `${say('Thank you.')}<Hangup/>`,
    ];
    return `<?xml version="1.0" encoding="UTF-8"?><Response>${verbs[step]!()}</Response>`;
  }
  const checked = (url: string, signature: unknown, form: Form) =>
    typeof signature === 'string' && twilio.validateRequest(token, signature, `${publicUrl}${url}`, form);

  /** The turn's blocks entered, as the path's entries, and the outcome stored with its event. */
  function turnOf(session: FloorSession, step: number, now: string, digits: string | undefined) {
    const entered = TURN_BLOCKS[step]!.map((block) => ({ plan_id: session.plan_id, ...block, at: now }));
    if (digits) session.digits.push({ node_id: session.path.at(-1)?.node_id ?? '', digits, at: now });
    session.path.push(...entered);
    session.step = step;
    session.said.push(...entered.map((block) => `${block.type}:${block.node_id}:${'x'.repeat(40)}`));
    return { revision: step + 1, status: step === LAST_STEP ? 'ended' : 'waiting', actions: entered.map((block) => ({ say: `${block.node_id}:${'x'.repeat(40)}` })), entered, ignored: false };
  }

  const storeStart = sqlite.transaction((sid: string, form: Form, now: string) => {
    const session: FloorSession = { id: sid, tenant_id: tenantId, plan_id: planId, caller: form.From ?? '', called: form.To ?? '', step: 0, started_at: now, variables: { lang: 'en', visits: 1 }, path: [], digits: [], said: [] };
    const outcome = turnOf(session, 0, now, undefined);
    statements.insertSession.run(sid, tenantId, planId, session.caller, session.called, JSON.stringify(session), now, now, now);
    kept.set(sid, { revision: 1, session });
    statements.insertEvent.run(sid, 'start', 1, JSON.stringify(outcome), now);
  });

  /** As the app keeps a call's session between its turns (modules/sessions/kept-sessions.ts): parsed again only when another turn moved it. */
  const kept = new Map<string, { revision: number; session: FloorSession }>();
  const storeTurn = sqlite.transaction((row: { state: string; revision: number }, sid: string, eventId: string, step: number, form: Form, now: string) => {
    const keptSession = kept.get(sid);
    const session = keptSession?.revision === row.revision ? keptSession.session : (JSON.parse(row.state) as FloorSession);
    const outcome = turnOf(session, step, now, form.Digits);
    const ended = step === LAST_STEP;
    if (statements.updateSession.run(row.revision + 1, outcome.status, JSON.stringify(session), now, now, ended ? now : null, sid, row.revision).changes === 0) return;
    statements.insertEvent.run(sid, eventId, row.revision + 1, JSON.stringify(outcome), now);
    if (ended) {
      kept.delete(sid);
      storeEnd(session, now);
    } else kept.set(sid, { revision: row.revision + 1, session });
  });

  function storeEnd(session: FloorSession, now: string): void {
    const hour = Math.floor(Date.parse(session.started_at) / 3_600_000);
    statements.insertReport.run(
      tenantId, session.id, planId, session.caller, session.called, `p-${session.id}`, planId,
      JSON.stringify(session.path), JSON.stringify(session.digits), JSON.stringify(session.variables), session.started_at, now, 0, now, now,
    );
    const counters = [1, 1, 0, 0, 1, 0, 0, 0, 0, 0];
    rollups.tenants!.run(tenantId, hour, ...counters);
    rollups.sessions!.run(tenantId, hour, planId, ...counters);
    const nodes = session.path.map((entry) => [entry.plan_id, entry.node_id, 1, entry.exit === null && entry.type === 'hangup' ? 1 : 0]);
    const digits = session.digits.map((entry) => [planId, entry.node_id, entry.digits, 1]);
    for (const [suffix, bucket] of [['', hour], ['_days', Math.floor(hour / 24)]] as const) {
      rollups[`nodes${suffix}`]!.run(nodes.flatMap((row) => [planId, bucket, tenantId, ...row]));
      rollups[`digits${suffix}`]!.run(digits.flatMap((row) => [planId, bucket, tenantId, ...row]));
    }
  }

  app.post<{ Body: Form; Querystring: { session?: string; step?: string } }>(`${hooks}voice`, async (request, reply) => {
    if (!checked(request.url, request.headers['x-twilio-signature'], request.body)) return reply.code(403).send();
    const form = request.body;
    const sid = form.CallSid ?? '';
    const now = new Date().toISOString();
    const step = Number(request.query.step ?? 0);
    if (step === 0) {
      const check = statements.startCheck.get(sid) as { outcome: string | null; running: number };
      if (check.outcome === null) storeStart(sid, form, now);
    } else {
      const eventId = `${form.Digits ? 'gather' : 'dial'}:${step}`;
      const row = statements.readTurn.get(eventId, sid) as { state: string; revision: number; outcome: string | null } | undefined;
      if (!row) return reply.code(404).send();
      if (row.outcome === null) storeTurn(row, sid, eventId, step, form, now);
    }
    return reply.type('text/xml; charset=utf-8').send(answer(sid, step));
  });
  app.post<{ Body: Form }>(`${hooks}status`, async (request, reply) => {
    if (!checked(request.url, request.headers['x-twilio-signature'], request.body)) return reply.code(403).send();
    const sid = request.body.CallSid ?? '';
    const row = statements.readTurn.get('call-end', sid) as { revision: number; updated_time: string; outcome: string | null } | undefined;
    if (row && row.outcome === null) {
      const now = new Date().toISOString();
      sqlite.transaction(() => {
        if (statements.touchSession.run(row.revision + 1, now, sid, row.revision).changes === 0) return;
        statements.insertEvent.run(sid, 'call-end', row.revision + 1, JSON.stringify({ revision: row.revision + 1, status: 'ended', actions: [], entered: [], ignored: true }), now);
      })();
    }
    return reply.code(204).send();
  });
  return app;
}

/**
 * The Twilio call's stored floor (bench/README.md, "Issue 40: the stored floor"): the least this
 * stack does for a call when it stores what the product's contract says a call stores, with no
 * engine and no framework of ours, each statement prepared once:
 *
 * - every turn durable before it is answered, so any instance takes the next one (docs/sessions.md):
 *   the session's row read with the event's stored outcome (a retried callback answers from it), then
 *   the row written over the revision read and the event inserted, together;
 * - the start's check of a repeat and the licence's count of running sessions, one read;
 * - at the end, the report and the statistics' counters (the same 44 rows of six tables), with the
 *   last turn's write, as the dashboard needs them.
 *
 * This file is what both databases share (the requests, the TwiML, the session kept between turns,
 * the rows written); how they are written is the store's: on SQLite (twilio-stored-sqlite.ts)
 * better-sqlite3's statements in a transaction, on PostgreSQL (twilio-stored-postgres.ts) one
 * statement a read and one a write, as the app sends them there. It runs on a database the real app
 * migrated and seeded, and writes rows of the app's sizes: the state grows by the blocks a turn
 * entered (3.5 KB at the end of the bench's call, as the app's), each event's outcome holds the
 * turn's answer and path (0.5 to 1 KB). `bench/api/floor.ts`' `startTwilioFloor` stays the floor of
 * the request alone: one small upsert a turn.
 */
import formbody from '@fastify/formbody';
import Fastify, { type FastifyInstance } from 'fastify';
import twilio from 'twilio';

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

type MaybePromise<T> = T | Promise<T>;

/** A turn's write: the session's row over the revision read, and the turn's event at the new revision. */
export interface TurnWrite {
  sid: string;
  readRevision: number;
  status: 'waiting' | 'ended';
  state: string;
  now: string;
  eventId: string;
  outcome: string;
}

/** One rollup table's rows a call adds: the columns keying a row, the counters it raises, the rows (keys then counters). */
export interface RollupRows {
  table: string;
  keys: readonly string[];
  counters: readonly string[];
  rows: Array<Array<string | number>>;
}

/** What the last turn writes besides the turn: the report (call_reports' columns) and the rollups. */
export interface EndRows {
  report: Record<string, string | number | null>;
  rollups: RollupRows[];
}

/** How a database stores the floor's call. */
export interface FloorStore {
  tenantId: number;
  planId: number;
  /** The start's stored outcome if this call started before, and the licence's count of running sessions. */
  startCheck(sid: string): MaybePromise<{ outcome: string | null; running: number }>;
  storeStart(start: { sid: string; caller: string; called: string; state: string; outcome: string; now: string }): MaybePromise<void>;
  /** The session's row and the stored outcome of `eventId`: one read. */
  readTurn(eventId: string, sid: string): MaybePromise<{ state: string; revision: number; outcome: string | null } | undefined>;
  /** False when the revision moved on: nothing written. `end`: the report and rollups, written with the turn. */
  storeTurn(turn: TurnWrite, end: EndRows | undefined): MaybePromise<boolean>;
  /** An event that changes nothing but the revision (the status callback). */
  touch(turn: Omit<TurnWrite, 'status' | 'state'>): MaybePromise<boolean>;
  close(): MaybePromise<void>;
}

const SESSION_COUNTERS = ['sessions', 'voice', 'chat', 'routed', 'retained', 'abandoned', 'failed', 'expired', 'missed', 'duration_s'] as const;
const nodeKeys = (bucket: 'hour' | 'day') => ['plan_id', bucket, 'tenant_id', 'node_plan_id', 'node_id'] as const;

/** The report and the 44 counters of the bench's call, as the app writes them. */
function endRowsOf(session: FloorSession, now: string): EndRows {
  const report = {
    tenant_id: session.tenant_id, session_id: session.id, plan_id: session.plan_id, plan_name: 'Bench IVR', plan_version: 1, channel: 'voice',
    provider: 'twilio', direction: 'inbound', caller: session.caller, called: session.called, source_ip: '127.0.0.1', protocol: `p-${session.id}`,
    last_node_plan_id: session.plan_id, last_node_id: 'bye', last_node_type: 'hangup', nodes: JSON.stringify(session.path),
    pressed_digits: JSON.stringify(session.digits), hangup_cause: 'normal_clearing', disposition: 'retained', dial_status: 'busy', failure: null,
    recording: null, variables: JSON.stringify(session.variables), is_test: 0, start_time: session.started_at, end_time: now, duration_s: 0,
    created_time: now, updated_time: now, goal: null,
  };
  const hour = Math.floor(Date.parse(session.started_at) / 3_600_000);
  const { tenant_id: tenantId, plan_id: planId } = session;
  const counters = [1, 1, 0, 0, 1, 0, 0, 0, 0, 0];
  const nodes = session.path.map((entry) => [entry.plan_id, entry.node_id, 1, entry.exit === null && entry.type === 'hangup' ? 1 : 0]);
  const digits = session.digits.map((entry) => [planId, entry.node_id, entry.digits, 1]);
  const rollups: RollupRows[] = [
    { table: 'stats_tenants', keys: ['tenant_id', 'hour'], counters: SESSION_COUNTERS, rows: [[tenantId, hour, ...counters]] },
    { table: 'stats_sessions', keys: ['tenant_id', 'hour', 'plan_id'], counters: SESSION_COUNTERS, rows: [[tenantId, hour, planId, ...counters]] },
  ];
  for (const [suffix, bucket, value] of [['', 'hour', hour], ['_days', 'day', Math.floor(hour / 24)]] as const) {
    rollups.push(
      { table: `stats_nodes${suffix}`, keys: nodeKeys(bucket), counters: ['entered', 'ended'], rows: nodes.map((row) => [planId, value, tenantId, ...row]) },
      { table: `stats_digits${suffix}`, keys: [...nodeKeys(bucket), 'digits'], counters: ['count'], rows: digits.map((row) => [planId, value, tenantId, ...row]) },
    );
  }
  return { report, rollups };
}

/** An upsert's `set` that raises each counter by the inserted row's. */
export const raise = (table: string, counters: readonly string[]) => counters.map((column) => `"${column}" = "${table}"."${column}" + excluded."${column}"`).join(', ');

/** `publicUrl` and `token`: what the requests are signed with. */
export function startTwilioStoredFloor(store: FloorStore, publicUrl: string, token: string): FastifyInstance {
  const { tenantId, planId } = store;
  const app = Fastify();
  app.addHook('onClose', async () => {
    await store.close();
  });
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
    return { revision: step + 1, status: step === LAST_STEP ? 'ended' : 'waiting', actions: entered.map((block) => ({ say: `${block.node_id}:${'x'.repeat(40)}` })), entered, ignored: false } as const;
  }

  /** As the app keeps a call's session between its turns (modules/sessions/kept-sessions.ts): parsed again only when another turn moved it. */
  const kept = new Map<string, { revision: number; session: FloorSession }>();

  async function storeStart(sid: string, form: Form, now: string): Promise<void> {
    const session: FloorSession = { id: sid, tenant_id: tenantId, plan_id: planId, caller: form.From ?? '', called: form.To ?? '', step: 0, started_at: now, variables: { lang: 'en', visits: 1 }, path: [], digits: [], said: [] };
    const outcome = turnOf(session, 0, now, undefined);
    await store.storeStart({ sid, caller: session.caller, called: session.called, state: JSON.stringify(session), outcome: JSON.stringify(outcome), now });
    kept.set(sid, { revision: 1, session });
  }

  async function storeTurn(row: { state: string; revision: number }, sid: string, eventId: string, step: number, form: Form, now: string): Promise<void> {
    const keptSession = kept.get(sid);
    const session = keptSession?.revision === row.revision ? keptSession.session : (JSON.parse(row.state) as FloorSession);
    const outcome = turnOf(session, step, now, form.Digits);
    const ended = step === LAST_STEP;
    const turn: TurnWrite = { sid, readRevision: row.revision, status: outcome.status, state: JSON.stringify(session), now, eventId, outcome: JSON.stringify(outcome) };
    if (!(await store.storeTurn(turn, ended ? endRowsOf(session, now) : undefined))) return;
    if (ended) kept.delete(sid);
    else kept.set(sid, { revision: row.revision + 1, session });
  }

  app.post<{ Body: Form; Querystring: { session?: string; step?: string } }>(`${hooks}voice`, async (request, reply) => {
    if (!checked(request.url, request.headers['x-twilio-signature'], request.body)) return reply.code(403).send();
    const form = request.body;
    const sid = form.CallSid ?? '';
    const now = new Date().toISOString();
    const step = Number(request.query.step ?? 0);
    if (step === 0) {
      const check = await store.startCheck(sid);
      if (check.outcome === null) await storeStart(sid, form, now);
    } else {
      const eventId = `${form.Digits ? 'gather' : 'dial'}:${step}`;
      const row = await store.readTurn(eventId, sid);
      if (!row) return reply.code(404).send();
      if (row.outcome === null) await storeTurn(row, sid, eventId, step, form, now);
    }
    return reply.type('text/xml; charset=utf-8').send(answer(sid, step));
  });
  app.post<{ Body: Form }>(`${hooks}status`, async (request, reply) => {
    if (!checked(request.url, request.headers['x-twilio-signature'], request.body)) return reply.code(403).send();
    const sid = request.body.CallSid ?? '';
    const row = await store.readTurn('call-end', sid);
    if (row && row.outcome === null) {
      const outcome = JSON.stringify({ revision: row.revision + 1, status: 'ended', actions: [], entered: [], ignored: true });
      await store.touch({ sid, readRevision: row.revision, now: new Date().toISOString(), eventId: 'call-end', outcome });
    }
    return reply.code(204).send();
  });
  return app;
}

/**
 * bench:channels' Twilio call (bench/README.md): the requests of one whole call as Twilio makes
 * them, signed, each answer checked; the IVR seeded on a Twilio number; the load and its figures
 * a call. Shared by bench/channels/run.ts and bench/budget.ts.
 */
import { randomBytes } from 'node:crypto';
import autocannon from 'autocannon';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import twilio from 'twilio';
import { autocannonSlice, type Contender, interleavedRound, warmUp } from '../api/interleaved.ts';
import { apiCall } from '../lib/api-call.ts';
import { failedOf, type LoadFigures, measureLoad, runLoad } from '../lib/load.ts';
import type { ServerChild } from '../lib/server-child.ts';
import { seedIvr } from './ivr-plan.ts';

export const PUBLIC_URL = 'https://voice.bench.example';
const ACCOUNT = 'AC00000000000000000000000000000b00';
export const TOKEN = randomBytes(16).toString('hex');
const NUMBER = '+551140000000';
const CALLER = '+14155550100';
const HOOKS = '/api/v1/hooks/twilio/';

// ---------------------------------------------------------------------------------------------
// A call, as Twilio makes it

type Form = Record<string, string>;
interface CallContext {
  sid?: string;
  /** The path and query of the action URL the last answer named (Gather's or Dial's). */
  action?: string;
}

/** Twilio's signed request to PUBLIC_URL + `pathAndQuery` with this form. */
function signed(pathAndQuery: string, form: Form) {
  return {
    method: 'POST' as const,
    path: pathAndQuery,
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      'x-twilio-signature': twilio.getExpectedTwilioSignature(TOKEN, `${PUBLIC_URL}${pathAndQuery}`, form),
    },
    body: new URLSearchParams(form).toString(),
  };
}

const callForm = (sid: string, extra: Form = {}): Form => ({
  AccountSid: ACCOUNT,
  CallSid: sid,
  From: CALLER,
  To: NUMBER,
  Direction: 'inbound',
  CallStatus: 'in-progress',
  ...extra,
});

/** The action URL of the document's verb, as Twilio would call it (path and query). */
function actionOf(twiml: string, verb: 'Gather' | 'Dial'): string | undefined {
  const match = new RegExp(`<${verb}[^>]* action="([^"]+)"`).exec(twiml);
  return match?.[1]!.replaceAll('&amp;', '&').slice(PUBLIC_URL.length);
}

/** Answers that were not what the call expects (a wrong branch, a refused signature): the figures would mean nothing. */
export const wrongAnswers: string[] = [];
function expectThat(ok: boolean, what: string, body: string): void {
  if (!ok && wrongAnswers.length < 5) wrongAnswers.push(`${what}: ${body.slice(0, 300)}`);
}

let callSerial = 0;
/**
 * One whole call, request by request: the first request to the main menu's Gather, key 1 (sales),
 * key 2 in the sales menu up to the Dial, the Dial busy up to the survey's Gather, key 5 to the
 * Hangup, then the status callback.
 */
export function callRequests(): autocannon.Request[] {
  const gatherWith = (digits: string, next: 'Gather' | 'Dial' | 'Hangup'): autocannon.Request => ({
    setupRequest: (request, context: CallContext) => ({ ...request, ...signed(context.action ?? `${HOOKS}voice?session=none`, callForm(context.sid!, { Digits: digits })) }),
    onResponse: (status, body, context: CallContext) => followed(status, body, context, next),
  });
  const followed = (status: number, body: string, context: CallContext, next: 'Gather' | 'Dial' | 'Hangup') => {
    if (next === 'Hangup') {
      expectThat(status === 200 && body.includes('<Hangup/>'), 'the survey key did not hang up', body);
      return;
    }
    context.action = actionOf(body, next);
    expectThat(status === 200 && context.action !== undefined, `no ${next} in the answer`, body);
  };
  return [
    {
      setupRequest: (request, context: CallContext) => {
        context.sid = `CA${process.pid}x${(callSerial += 1)}`;
        return { ...request, ...signed(`${HOOKS}voice`, callForm(context.sid, { CallStatus: 'ringing' })) };
      },
      onResponse: (status, body, context: CallContext) => followed(status, body, context, 'Gather'),
    },
    gatherWith('1', 'Gather'),
    gatherWith('2', 'Dial'),
    {
      setupRequest: (request, context: CallContext) => ({ ...request, ...signed(context.action ?? `${HOOKS}voice?session=none`, callForm(context.sid!, { DialCallStatus: 'busy' })) }),
      onResponse: (status, body, context: CallContext) => followed(status, body, context, 'Gather'),
    },
    gatherWith('5', 'Hangup'),
    {
      setupRequest: (request, context: CallContext) => ({ ...request, ...signed(`${HOOKS}status`, callForm(context.sid!, { CallStatus: 'completed', CallDuration: '42' })) }),
      onResponse: (status, body) => expectThat(status === 204, 'the status callback', body),
    },
  ];
}
export const REQUESTS_PER_CALL = callRequests().length;

/** A load's figures, and for calls the calls a second and the server CPU of a whole call. */
export interface Measurement extends LoadFigures {
  /** Whole calls, or the hello-world's single requests. */
  calls: boolean;
  callsPerSecond: number;
  cpuMsPerCall: number;
}

/** The statements each server sent to PostgreSQL so far (null on SQLite): counted over a measured run too. */
export const sentStatements = async (server: ServerChild): Promise<number | null> => {
  const sent = await server.command({ cmd: 'statements' });
  return typeof sent === 'number' ? sent : null;
};
/** How long and how hard the calls are driven. */
export interface CallLoad {
  connections: number;
  seconds: number;
  warmupSeconds: number;
}

/** Warm-up, then the measured run, on one server or spread over several (the connections shared out). */
export async function measureCalls(name: string, servers: ServerChild[], calls: boolean, load: CallLoad): Promise<Measurement> {
  const figures = await measureLoad(name, servers, calls ? { requests: callRequests() } : {}, { ...load, failures: wrongAnswers, count: sentStatements });
  // Calls completed: their last request, the status callback, answered.
  const completedCalls = calls ? Math.floor(figures.requests / REQUESTS_PER_CALL) : figures.requests;
  return {
    ...figures,
    calls,
    callsPerSecond: completedCalls / figures.duration,
    cpuMsPerCall: (figures.cpuMsPerRequest * figures.requests) / completedCalls,
  };
}

/**
 * One round of calls on several servers under the same conditions (bench/api/interleaved.ts: each
 * warmed up alone, then slices of calls on each in turn, each one's CPU read over the whole round).
 * Returns each server's CPU a call, ms. A slice's last calls stop half-way: CPU a call is CPU a
 * request times the call's requests, so they count for what they sent.
 */
export async function interleavedCalls(
  servers: Array<{ label: string; server: ServerChild }>,
  options: { slices: number; sliceSeconds: number; warmupSeconds: number; connections: number; failures: string[] },
): Promise<number[]> {
  const shape = { requests: callRequests() };
  const contenders: Contender[] = servers.map(({ label, server }) => ({ label, server, load: async (seconds, connections) => autocannonSlice(await runLoad(server, shape, connections, seconds)) }));
  await warmUp(
    contenders.map((contender) => [contender, options.warmupSeconds]),
    options,
  );
  process.stderr.write(`  ${servers.map(({ label }) => label).join(', ')}: ${options.slices} slices of ${options.sliceSeconds}s each, in turn\n`);
  const shares = await interleavedRound(contenders, options);
  return shares.map((share) => (share.µsPerRequest * REQUESTS_PER_CALL) / 1000);
}

/** `calls` whole calls on `server`, `connections` at a time, then autocannon's result. */
function runCalls(server: ServerChild, calls: number, connections: number): Promise<autocannon.Result> {
  return new Promise((resolve, reject) => {
    autocannon({ url: server.url, requests: callRequests(), connections, amount: calls * REQUESTS_PER_CALL, timeout: 10 }, (error: unknown, answer: autocannon.Result) =>
      error ? reject(error instanceof Error ? error : new Error(String(error))) : resolve(answer),
    );
  });
}

/**
 * `calls` whole calls on `server`, 32 at a time, before its first figure: V8 compiles a server's
 * path over its first thousands of turns, and a server that answers fewer calls a second (the app
 * on PostgreSQL: each turn waits on round trips) would otherwise carry more of that one-off cost
 * in each call of a figure measured for the same seconds. bench/README.md, "Issue 40: warmed by
 * calls, not seconds".
 */
export async function warmUpCalls(server: ServerChild, calls: number): Promise<void> {
  if (calls <= 0) return;
  const result = await runCalls(server, calls, 32);
  if (failedOf(result) > 0) wrongAnswers.push(`${failedOf(result)} failed requests in the warm-up of ${calls} calls`);
}

// ---------------------------------------------------------------------------------------------
// Set-up through the API

/** The IVR on a Twilio number, the tenant holding the keys its webhooks are signed with. */
export const seedTwilioIvr = (server: ServerChild) =>
  seedIvr(server, { e164: NUMBER, provider: 'twilio' }, async (token, tenantId) => {
    await apiCall(server, 'PATCH', `/tenants/${tenantId}/integrations`, token, { twilio_sid: ACCOUNT, twilio_token: TOKEN });
  });

/** One call on its own first, its answers checked, so that a broken path fails loudly before any figure. */
export async function checkOneCall(server: ServerChild): Promise<void> {
  const result = await runCalls(server, 1, 1);
  if (failedOf(result) > 0 || wrongAnswers.length > 0) throw new Error(`the checked call failed: ${JSON.stringify(result.statusCodeStats)} ${wrongAnswers.join('; ')}`);
}

/** What one whole call stores, as the app stores it: its six events, its report, and its 44 counters' sums (the sessions, the blocks entered, the keys pressed; each by hour and by day). */
const STORED_OF_ONE_CALL = { events: 6, reports: 1, sessions: 2, entered: 36, digits: 6 };
const STORED_QUERY =
  'select (select count(*) from session_events) as events, (select count(*) from call_reports) as reports, ' +
  '(select coalesce(sum(sessions), 0) from stats_tenants) + (select coalesce(sum(sessions), 0) from stats_sessions) as sessions, ' +
  '(select coalesce(sum(entered), 0) from stats_nodes) + (select coalesce(sum(entered), 0) from stats_nodes_days) as entered, ' +
  '(select coalesce(sum("count"), 0) from stats_digits) + (select coalesce(sum("count"), 0) from stats_digits_days) as digits';

/**
 * The stored floor's database after its one checked call (checkOneCall), read by a connection of
 * its own (`database`: the PostgreSQL URL or the SQLite file): a floor that skipped a write would
 * be cheaper than what it stands for.
 */
export async function checkStoredCall(database: string): Promise<void> {
  let row: Record<string, unknown>;
  if (database.startsWith('postgres')) {
    const client = new pg.Client({ connectionString: database });
    await client.connect();
    try {
      row = (await client.query<Record<string, unknown>>(STORED_QUERY)).rows[0]!;
    } finally {
      await client.end();
    }
  } else {
    const sqlite = new SQLite(database, { readonly: true });
    row = sqlite.prepare(STORED_QUERY).get() as Record<string, unknown>;
    sqlite.close();
  }
  const stored = Object.fromEntries(Object.keys(STORED_OF_ONE_CALL).map((key) => [key, Number(row[key])]));
  if (JSON.stringify(stored) !== JSON.stringify(STORED_OF_ONE_CALL)) throw new Error(`the stored floor's call stored ${JSON.stringify(stored)}, not ${JSON.stringify(STORED_OF_ONE_CALL)}`);
}

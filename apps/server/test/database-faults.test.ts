/**
 * When the database falters (issue 37, docs/deployment.md "When the database falters"): a real
 * HTTP server on a PostgreSQL this file starts, restarts, pauses and runs out of connections, under concurrent
 * signed Twilio calls. Every voice answer is TwiML (the caller hears "not available right now"
 * rather than Twilio's application error), no request to Twilio answers a 5xx, no session stays
 * waiting once the database is back and the calls' ends were sent, an instance whose first read
 * met the fault heals, /metrics says the database is down, and the log says so in one line each way.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import pg from 'pg';
import twilio from 'twilio';
import { afterAll, beforeAll, describe, expect, onTestFinished, test } from 'vitest';
import { buildApp } from '../src/app.ts';
import { type Started, startContext } from '../src/bootstrap.ts';
import { loadConfig } from '../src/config.ts';
import { unlimitedTestLicenseEnv } from '../src/modules/license/test-license.ts';
import { createTestDatabase, type PostgresServer, startPostgres } from './postgres-server.ts';
import { readFixture, storePlan } from './sessions-helpers.ts';
import { twilioCallForm } from './twilio-callbacks.ts';

const PUBLIC_URL = 'https://voice.example.com';
const ACCOUNT = 'AC00000000000000000000000000000037';
const TOKEN = 'twilio-auth-token-37';
const NUMBER = '+551130000037';
const METRICS_TOKEN = 'metrics-token-37';
const CALLERS = 6;

interface LogLine {
  level: number;
  msg: string;
  event?: string;
  [field: string]: unknown;
}

interface Instance {
  started: Started;
  app: FastifyInstance;
  address: string;
  lines: LogLine[];
  raw: string[];
}

let postgres: PostgresServer;
let databaseUrl: string;
let dropDatabase: () => Promise<void>;
const dataDirs: string[] = [];
const instances: Instance[] = [];

/** A server as main.ts starts one: one pino logger for the context and the app, its JSON lines kept. */
async function startInstance(env: Record<string, string>): Promise<Instance> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'voxplan-faults-'));
  dataDirs.push(dataDir);
  const lines: LogLine[] = [];
  const raw: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      for (const line of String(chunk).split('\n').filter(Boolean)) {
        raw.push(line);
        lines.push(JSON.parse(line) as LogLine);
      }
      callback();
    },
  });
  const config = loadConfig({
    ...(await unlimitedTestLicenseEnv()),
    DATA_DIR: dataDir,
    DATABASE_URL: databaseUrl,
    PUBLIC_URL,
    MASTER_KEY: '37'.repeat(32),
    ADMIN_PASSWORD: 'admin-password-1',
    METRICS_TOKEN,
    LOG_LEVEL: 'info',
    // Bounds short enough for the test's faults of a few seconds; their defaults are 3 s, 5 s and 8 s.
    DATABASE_CONNECT_TIMEOUT_MS: '1000',
    DATABASE_QUERY_TIMEOUT_MS: '1500',
    PROVIDER_HOOK_DEADLINE_MS: '2500',
    SLOW_REQUEST_MS: '1000',
    ...env,
  });
  const logger = pino({ level: 'info' }, stream);
  const started = await startContext(config, { logger });
  const app = await buildApp(started.ctx, { loggerInstance: logger });
  const address = await app.listen({ host: '127.0.0.1', port: 0 });
  const instance = { started, app, address, lines, raw };
  instances.push(instance);
  return instance;
}

async function hook(instance: Instance, hookPath: string, form: Record<string, string>): Promise<{ status: number; type: string; body: string }> {
  const url = `/api/v1/hooks/twilio/${hookPath}`;
  const signature = twilio.getExpectedTwilioSignature(TOKEN, `${PUBLIC_URL}${url}`, form);
  const response = await fetch(`${instance.address}${url}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': signature },
    body: new URLSearchParams(form).toString(),
    signal: AbortSignal.timeout(15_000),
  });
  return { status: response.status, type: response.headers.get('content-type') ?? '', body: await response.text() };
}

const callForm = (callSid: string, extra: Record<string, string> = {}) => twilioCallForm({ account: ACCOUNT, callSid, from: '+14155550100', to: NUMBER }, extra);

interface CallRecord {
  callSid: string;
  voice: { status: number; type: string; body: string };
  end: { status: number };
}

/** Callers that each start a call and end it (the status callback), one after another, until `stop` is set. */
function placeCalls(instance: Instance, prefix: string, until: { stop: boolean }): Promise<CallRecord[]> {
  const calls: CallRecord[] = [];
  const caller = async (index: number) => {
    for (let n = 0; !until.stop; n++) {
      const callSid = `CA${prefix}${index}x${n}`;
      const voice = await hook(instance, 'voice', callForm(callSid, { CallStatus: 'ringing' }));
      const end = await hook(instance, 'status', callForm(callSid, { CallStatus: 'completed', CallDuration: '3' }));
      calls.push({ callSid, voice, end });
    }
  };
  return Promise.all(Array.from({ length: CALLERS }, (_, index) => caller(index))).then(() => calls);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function scrape(instance: Instance): Promise<{ status: number; text: string }> {
  const response = await fetch(`${instance.address}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` }, signal: AbortSignal.timeout(10_000) });
  return { status: response.status, text: await response.text() };
}

const sample = (text: string, series: string) => {
  const line = text.split('\n').find((candidate) => candidate.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
};

/** The calls of `calls` whose session is still waiting. */
async function waitingOf(instance: Instance, calls: CallRecord[]): Promise<string[]> {
  const rows = await instance.started.ctx.db
    .selectFrom('sessions')
    .select('id')
    .where('status', '=', 'waiting')
    .where(
      'id',
      'in',
      calls.map((call) => call.callSid),
    )
    .execute();
  return rows.map((row) => row.id);
}

/** Every answer to Twilio: TwiML for the voice hook, 204 for the status callback, never a 5xx. */
function expectAnsweredAsTwilioNeeds(calls: CallRecord[]): void {
  for (const call of calls) {
    expect(call.voice.status, `${call.callSid}: ${call.voice.body}`).toBe(200);
    expect(call.voice.type).toMatch(/^text\/xml/);
    expect(call.voice.body).toMatch(/^<\?xml/);
    expect(call.end.status, call.callSid).toBe(204);
  }
}

/**
 * Takes every connection slot of the server with raw clients (superusers, as the instances are, so
 * the reserved slots too) until it answers 53300 "too many clients"; returns what frees them.
 */
async function holdAllConnections(url: string): Promise<{ held: number; release: () => Promise<void> }> {
  const clients: pg.Client[] = [];
  for (;;) {
    const batch = Array.from({ length: 10 }, () => new pg.Client({ connectionString: url, application_name: 'voxplan-faults-filler' }));
    const connected = await Promise.allSettled(batch.map((client) => client.connect().then(() => client)));
    let full = false;
    for (const [index, outcome] of connected.entries()) {
      if (outcome.status === 'fulfilled') clients.push(outcome.value);
      else {
        void batch[index]!.end().catch(() => undefined);
        expect((outcome.reason as { code?: string }).code).toBe('53300');
        full = true;
      }
    }
    if (full) break;
  }
  return { held: clients.length, release: () => Promise.all(clients.map((client) => client.end().catch(() => undefined))).then(() => undefined) };
}

const unavailableSay = 'This service is not available right now. Please call again later. Goodbye.';

describe.skipIf(process.env.TEST_DIALECT !== 'postgres')('when the database falters', () => {
  let first: Instance;

  beforeAll(async () => {
    postgres = await startPostgres();
    const database = await createTestDatabase(postgres.url);
    databaseUrl = database.url;
    dropDatabase = database.drop;
    first = await startInstance({});
    const call = async (method: 'POST' | 'PATCH', url: string, payload: Record<string, unknown>, token?: string) => {
      const response = await first.app.inject({ method, url: `/api/v1${url}`, payload, headers: { ...(token && { authorization: `Bearer ${token}` }) } });
      expect(response.statusCode, response.body).toBeLessThan(300);
      return response.json<{ id: number; token: string }>();
    };
    const admin = (await call('POST', '/login', { username: 'admin', password: 'admin-password-1' })).token;
    const tenantId = (await call('POST', '/tenants', { name: 'Faults' }, admin)).id;
    await call('PATCH', `/tenants/${tenantId}/integrations`, { twilio_sid: ACCOUNT, twilio_token: TOKEN }, admin);
    const inTenant = async (url: string, payload: Record<string, unknown>) => {
      const response = await first.app.inject({ method: 'POST', url: `/api/v1${url}`, payload, headers: { authorization: `Bearer ${admin}`, 'x-tenant-id': String(tenantId) } });
      expect(response.statusCode, response.body).toBe(201);
      return response.json<{ id: number }>().id;
    };
    const desk = await inTenant('/destinations', { name: 'Sales desk', kind: 'voice', uri: 'sip:sales@pbx.acme.example' });
    const days = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'];
    const always = await inTenant('/date-ranges', { name: 'Always', time_zone: 'UTC', intervals: days.map((day) => ({ day, start: '00:00', end: '24:00' })) });
    const plan = await storePlan(first.started.ctx, tenantId, readFixture('front-desk'), { references: { destination: { 1: desk }, date_range: { 1: always } } });
    await inTenant('/numbers', { number: NUMBER, provider: 'twilio', voice_plan_id: plan });
  });

  afterAll(async () => {
    for (const instance of instances.reverse()) {
      await instance.app.close();
      await instance.started.close();
    }
    await dropDatabase?.().catch(() => undefined);
    await postgres?.stop();
    for (const dir of dataDirs) fs.rmSync(dir, { recursive: true, force: true });
  });

  test('a restart: calls hear TwiML, no 5xx, no session left waiting, /metrics says down, an instance started before its first read heals, the log says it once each way', async () => {
    // Started without a licence file, this instance has not read the installation id yet: its first read meets the fault.
    const second = await startInstance({ LICENSE_FILE: '' });
    const until = { stop: false };
    const calls = placeCalls(first, 'r', until);
    onTestFinished(() => {
      until.stop = true;
    });
    await sleep(300);
    await postgres.halt();
    const down = Date.now();
    try {
      const [metrics, secondStart, health, live] = await Promise.all([
        scrape(first),
        hook(second, 'voice', callForm('CAsecond-down', { CallStatus: 'ringing' })),
        fetch(`${second.address}/api/v1/health`),
        fetch(`${second.address}/api/v1/health/live`),
      ]);
      // The scrape answers, and says the database is down, with the failed collectors named.
      expect(metrics.status).toBe(200);
      expect(sample(metrics.text, 'voxplan_database_up')).toBe(0);
      expect(sample(metrics.text, 'voxplan_collector_up{collector="sessions_running"}')).toBe(0);
      expect(secondStart.status).toBe(200);
      expect(secondStart.body).toContain(unavailableSay);
      expect(secondStart.body).toContain('<Hangup/>');
      expect(health.status).toBe(503);
      expect(live.status).toBe(200);
      const api = await fetch(`${second.address}/api/v1/license`, { headers: { authorization: 'Bearer x' } });
      expect(api.status).toBeLessThan(500);
    } finally {
      await sleep(Math.max(0, 2500 - (Date.now() - down)));
      await postgres.start();
    }
    await sleep(1500);
    until.stop = true;
    const placed = await calls;
    expectAnsweredAsTwilioNeeds(placed);
    expect(placed.some((call) => call.voice.body.includes(unavailableSay))).toBe(true);
    expect(placed.some((call) => call.voice.body.includes('<Gather'))).toBe(true);
    await expect.poll(() => waitingOf(first, placed), { timeout: 15_000, interval: 250 }).toEqual([]);

    // The second instance heals: ready again, and a call gets its plan.
    await expect.poll(async () => (await fetch(`${second.address}/api/v1/health`)).status, { timeout: 10_000, interval: 250 }).toBe(200);
    const healed = await hook(second, 'voice', callForm('CAsecond-up', { CallStatus: 'ringing' }));
    expect(healed.body).toContain('<Gather');
    await hook(second, 'status', callForm('CAsecond-up', { CallStatus: 'completed' }));
    const after = await scrape(first);
    expect(sample(after.text, 'voxplan_database_up')).toBe(1);
    expect(sample(after.text, 'voxplan_collector_up{collector="sessions_running"}')).toBe(1);
    // An idle pool counts no waiters: the scrape's own queries are not counted.
    expect(sample(after.text, 'voxplan_database_pool_connections{state="waiting"}')).toBe(0);

    // The log: JSON lines only; the outage once each way; one line per failed request, without a stack at info.
    expect(first.raw.every((line) => line.startsWith('{'))).toBe(true);
    expect(first.lines.filter((line) => line.event === 'database_unavailable')).toHaveLength(1);
    const back = first.lines.filter((line) => line.event === 'database_back');
    expect(back).toHaveLength(1);
    expect(back[0]!.msg).toMatch(/^database is back after [\d.]+ s$/);
    expect(first.raw.some((line) => line.includes('"stack"'))).toBe(false);
    expect(first.lines.some((line) => line.msg.startsWith('Twilio voice webhook answered "not available"'))).toBe(true);
  });

  test('a pause: the bounded waits and the deadline answer TwiML, the late starts are ended, the kept ends stored, and the stall is logged', async () => {
    // Its deadline is shorter than a statement's bound: its turns run past the deadline rather than fail.
    const hasty = await startInstance({ PROVIDER_HOOK_DEADLINE_MS: '800' });
    const fromLine = first.lines.length;
    const until = { stop: false };
    const calls = Promise.all([placeCalls(first, 'p', until), placeCalls(hasty, 'h', until)]);
    onTestFinished(() => {
      until.stop = true;
    });
    await sleep(300);
    const pids = await postgres.pids();
    for (const pid of pids) process.kill(pid, 'SIGSTOP');
    const paused = Date.now();
    try {
      const metrics = await scrape(first);
      expect(metrics.status).toBe(200);
      expect(sample(metrics.text, 'voxplan_database_up')).toBe(0);
      await sleep(Math.max(0, 4000 - (Date.now() - paused)));
    } finally {
      for (const pid of pids) process.kill(pid, 'SIGCONT');
    }
    await sleep(1500);
    until.stop = true;
    const [bounded, late] = await calls;
    const placed = [...bounded, ...late];
    expectAnsweredAsTwilioNeeds(placed);
    expect(bounded.some((call) => call.voice.body.includes(unavailableSay))).toBe(true);
    expect(late.some((call) => call.voice.body.includes(unavailableSay))).toBe(true);
    await expect.poll(() => waitingOf(first, placed), { timeout: 15_000, interval: 250 }).toEqual([]);
    // The stall is in the log: each fallback with its reason (a bound that ran out, or the deadline), and the slow requests.
    // Which runs out first depends on the machine's load: a bound (connect or statement) or the deadline.
    const fallbacks = first.lines.slice(fromLine).filter((line) => line.msg.startsWith('Twilio voice webhook answered "not available"'));
    expect(fallbacks.length).toBeGreaterThan(0);
    expect(fallbacks.every((line) => /timeout|past the deadline of 2500 ms/i.test(String(line.cause))), fallbacks.map((line) => line.cause).join('; ')).toBe(true);
    expect(hasty.lines.some((line) => /past the deadline of 800 ms/.test(line.msg))).toBe(true);
    expect(first.lines.some((line) => line.slow === true && line.level === 40)).toBe(true);
    expect(first.raw.every((line) => line.startsWith('{'))).toBe(true);
  });

  test('a final status answered "no session" on one instance while its start runs on another: the start, once committed, is ended at once', async () => {
    const other = await startInstance({});
    const sessions = first.started.ctx.sessions as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>;
    const start = sessions.start!;
    // The start is slow (a database that falters), within the deadline: the caller hears the plan.
    sessions.start = async (...args: unknown[]) => {
      await sleep(1200);
      return start.apply(first.started.ctx.sessions, args);
    };
    onTestFinished(() => {
      sessions.start = start;
    });
    const voice = hook(first, 'voice', callForm('CAsplit', { CallStatus: 'ringing' }));
    await sleep(300);
    // The caller hung up at once; Twilio's status callback reaches the other instance, which has no session for it yet.
    const end = await hook(other, 'status', callForm('CAsplit', { CallStatus: 'completed', CallDuration: '1' }));
    expect(end.status).toBe(204);
    expect(other.lines.some((line) => line.msg.startsWith('Twilio end of a call that has no session'))).toBe(true);
    expect((await voice).body).toContain('<Gather');
    sessions.start = start;
    // Ended within a moment of its start, not by the lost-calls sweeper 5 minutes later.
    const status = () => first.started.ctx.db.selectFrom('sessions').select('status').where('id', '=', 'CAsplit').executeTakeFirst();
    await expect.poll(async () => (await status())?.status, { interval: 100 }).toBe('ended');
  });

  test('out of connections (53300): calls hear TwiML, no 5xx, the kept ends stored once the connections are freed, no session left waiting', async () => {
    const databaseName = new URL(databaseUrl).pathname.slice(1);
    // The instances' pools hold connections from the earlier calls: they are closed first, while no
    // call runs, so that every query of the calls below needs a new one.
    const fromLine = first.lines.length;
    const admin = new pg.Client({ connectionString: postgres.url });
    await admin.connect();
    await admin.query('SELECT pg_terminate_backend(pid, 5000) FROM pg_stat_activity WHERE datname = $1', [databaseName]);
    await admin.end();
    const full = await holdAllConnections(postgres.url);
    expect(full.held).toBeGreaterThan(50);
    const until = { stop: false };
    const calls = placeCalls(first, 'c', until);
    onTestFinished(async () => {
      until.stop = true;
      await full.release();
    });
    try {
      await sleep(2500);
    } finally {
      await full.release();
    }
    await sleep(1500);
    until.stop = true;
    const placed = await calls;
    expectAnsweredAsTwilioNeeds(placed);
    expect(placed.some((call) => call.voice.body.includes(unavailableSay))).toBe(true);
    expect(placed.some((call) => call.voice.body.includes('<Gather'))).toBe(true);
    await expect.poll(() => waitingOf(first, placed), { timeout: 15_000, interval: 250 }).toEqual([]);
    const lines = first.lines.slice(fromLine);
    expect(lines.some((line) => line.msg.startsWith('Twilio voice webhook answered "not available"') && String(line.cause).startsWith('53300'))).toBe(true);
    // The outage is logged (from the closed connections on: one outage), and its end last.
    const outage = lines.filter((line) => line.event === 'database_unavailable' || line.event === 'database_back');
    expect(outage[0]?.event).toBe('database_unavailable');
    expect(outage.at(-1)?.event).toBe('database_back');
  });
});

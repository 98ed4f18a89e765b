/**
 * Twilio channel bench: `npm run bench:channels` (bench/README.md, "Channels").
 *
 * Whole phone calls through the Twilio hooks of the real app (a child process, bench/api/server.ts
 * `channels`): the voice hook's first request, each Gather's action with a key, the Dial's action
 * with a DialCallStatus and the status callback, every request signed as Twilio signs it (the
 * twilio library's getExpectedTwilioSignature). autocannon drives them: each connection runs one
 * call's requests in order, again and again, so BENCH_CONNECTIONS calls are in progress at once.
 * A bare Fastify hello-world measured in the same run is the baseline.
 * Environment:
 *   BENCH_SECONDS=5           measured seconds per figure (after BENCH_WARMUP_SECONDS=4 of warm-up)
 *   BENCH_CONNECTIONS=32      calls in progress at once (and hello-world connections)
 *   BENCH_DIALECT=both        sqlite | postgres | both (PostgreSQL: a throwaway server of its own)
 *   BENCH_INSTANCES=1         0: skip the one-against-two instances figure on PostgreSQL
 *   BENCH_PIN=1               0: no CPU pinning
 *   BENCH_PROFILE=0           1: afterwards, CPU-profile the server under the calls' load, per dialect
 *   BENCH_PROFILE_OUT=path    keep that .cpuprofile (the dialect goes before the extension)
 *   BENCH_STRICT=0            1: exit 3 when a target FAILs (failed requests always exit 1)
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import twilio from 'twilio';
import { createTestDatabase, startPostgres } from '../../apps/server/test/postgres-server.ts';
import { formatSummary, summarize, type CpuProfile } from '../api/cpu-profile.ts';
import { BENCH_ADMIN } from '../api/protocol.ts';
import { envNumber } from '../lib/env.ts';
import { checkedJson } from '../lib/http-json.ts';
import { canPin, cpuCount, LOADGEN_CPU, pinSelf, SERVER_CPU, type ServerChild, ServerChildren } from '../lib/server-child.ts';
import { BLOCKS_PER_CALL, ivrPlan } from './ivr-plan.ts';

type Dialect = 'sqlite' | 'postgres';
const settings = {
  seconds: envNumber('BENCH_SECONDS', 5),
  warmupSeconds: envNumber('BENCH_WARMUP_SECONDS', 4),
  connections: envNumber('BENCH_CONNECTIONS', 32),
  dialect: (process.env.BENCH_DIALECT ?? 'both') as Dialect | 'both',
  instances: process.env.BENCH_INSTANCES !== '0',
  pin: process.env.BENCH_PIN !== '0',
  profile: process.env.BENCH_PROFILE === '1',
  profileOut: process.env.BENCH_PROFILE_OUT,
  strict: process.env.BENCH_STRICT === '1',
};
if (!['sqlite', 'postgres', 'both'].includes(settings.dialect)) throw new Error('BENCH_DIALECT must be sqlite, postgres or both');
if (settings.connections < 2 || settings.connections % 2 !== 0) throw new Error('BENCH_CONNECTIONS must be an even number, 2 or more (two instances share them)');

/** The issue's targets, on SQLite. */
const TARGET = { ratio: 0.25, p99Ms: 20, cpuMsPerCall: 1 };

const serverScript = path.resolve(import.meta.dirname, '../api/server.ts');
const pinning = settings.pin && canPin();
const PUBLIC_URL = 'https://voice.bench.example';
const ACCOUNT = 'AC00000000000000000000000000000b00';
const TOKEN = randomBytes(16).toString('hex');
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
const wrongAnswers: string[] = [];
function expectThat(ok: boolean, what: string, body: string): void {
  if (!ok && wrongAnswers.length < 5) wrongAnswers.push(`${what}: ${body.slice(0, 300)}`);
}

let callSerial = 0;
/**
 * One whole call, request by request: the first request to the main menu's Gather, key 1 (sales),
 * key 2 in the sales menu up to the Dial, the Dial busy up to the survey's Gather, key 5 to the
 * Hangup, then the status callback.
 */
function callRequests(): autocannon.Request[] {
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
const REQUESTS_PER_CALL = callRequests().length;

// ---------------------------------------------------------------------------------------------
// Load

interface Measurement {
  name: string;
  /** Whole calls, or the hello-world's single requests. */
  calls: boolean;
  /** Requests (turns) a second, all servers together. */
  rps: number;
  callsPerSecond: number;
  p50: number;
  p99: number;
  failed: number;
  /** Share of one core each server used, and the load generator. */
  serverCpu: number[];
  loadgenCpu: number;
  /** Server CPU (all servers) per request and per whole call, in ms. */
  cpuMsPerRequest: number;
  cpuMsPerCall: number;
  /** The machine's 1-minute load average when the run ended: other work on the VM shows here. */
  load: number;
}

const percentile = (sorted: Float64Array, p: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? Number.NaN;

function load(server: ServerChild, connections: number, seconds: number, calls: boolean, onResponse?: (ms: number) => void): Promise<autocannon.Result> {
  return new Promise((resolve, reject) => {
    const instance = autocannon(
      {
        url: server.url,
        ...(calls ? { requests: callRequests() } : { method: 'GET' as const }),
        connections,
        duration: seconds,
        pipelining: 1,
        timeout: 10,
      },
      (error: unknown, result: autocannon.Result) => (error ? reject(error instanceof Error ? error : new Error(String(error))) : resolve(result)),
    );
    if (onResponse) instance.on('response', (_client, _status, _bytes, ms) => onResponse(ms));
  });
}

const failedOf = (result: autocannon.Result) => result.non2xx + result.errors + result.timeouts;

/** Warm-up, then the measured run, on one server or spread over several (the connections shared out). */
async function measure(name: string, servers: ServerChild[], calls: boolean): Promise<Measurement> {
  process.stderr.write(`  ${name}: warm-up ${settings.warmupSeconds}s, measure ${settings.seconds}s\n`);
  const perServer = settings.connections / servers.length;
  if (settings.warmupSeconds > 0) {
    const warm = await Promise.all(servers.map((server) => load(server, perServer, settings.warmupSeconds, calls)));
    const failed = warm.reduce((sum, result) => sum + failedOf(result), 0);
    if (failed > 0) wrongAnswers.push(`${name}: ${failed} failed requests in the warm-up`);
  }
  const latencies: number[] = [];
  const cpuBefore = servers.map((server) => server.cpuSeconds() ?? Number.NaN);
  const loadgenBefore = process.cpuUsage();
  const results = await Promise.all(servers.map((server) => load(server, perServer, settings.seconds, calls, (ms) => latencies.push(ms))));
  const loadgen = process.cpuUsage(loadgenBefore);
  const cpu = servers.map((server, index) => (server.cpuSeconds() ?? Number.NaN) - cpuBefore[index]!);
  const duration = Math.max(...results.map((result) => result.duration));
  const requests = results.reduce((sum, result) => sum + result.requests.total, 0);
  // Calls completed: their last request, the status callback, answered.
  const completedCalls = calls ? Math.floor(requests / REQUESTS_PER_CALL) : requests;
  const serverCpuS = cpu.reduce((sum, seconds) => sum + seconds, 0);
  const sorted = Float64Array.from(latencies).sort();
  const failed = results.reduce((sum, result) => sum + failedOf(result), 0);
  if (failed > 0) wrongAnswers.push(`${name}: ${failed} failed requests`);
  return {
    name,
    calls,
    rps: requests / duration,
    callsPerSecond: completedCalls / duration,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    failed,
    serverCpu: cpu.map((seconds) => seconds / duration),
    loadgenCpu: (loadgen.user + loadgen.system) / 1e6 / duration,
    cpuMsPerRequest: (serverCpuS / requests) * 1000,
    cpuMsPerCall: (serverCpuS / completedCalls) * 1000,
    load: os.loadavg()[0]!,
  };
}

// ---------------------------------------------------------------------------------------------
// Set-up through the API

async function api(server: ServerChild, method: string, url: string, token: string | null, body?: unknown, tenantId?: number): Promise<Record<string, unknown>> {
  const headers: Record<string, string> = {
    ...(body !== undefined && { 'content-type': 'application/json' }),
    ...(token && { authorization: `Bearer ${token}` }),
    ...(tenantId !== undefined && { 'x-tenant-id': String(tenantId) }),
  };
  return (await checkedJson(`${server.url}/api/v1${url}`, { method, headers, ...(body !== undefined && { body: JSON.stringify(body) }) }, `${method} ${url}`)) as Record<string, unknown>;
}

/** A tenant with Twilio keys, a destination, an always-open schedule, the published IVR, and the number that runs it. */
async function seed(server: ServerChild): Promise<void> {
  const token = String((await api(server, 'POST', '/login', null, BENCH_ADMIN)).token);
  const tenantId = Number((await api(server, 'POST', '/tenants', token, { name: 'bench' })).id);
  await api(server, 'PATCH', `/tenants/${tenantId}/integrations`, token, { twilio_sid: ACCOUNT, twilio_token: TOKEN });
  const destinationId = Number((await api(server, 'POST', '/destinations', token, { name: 'Sales', kind: 'voice', uri: 'sip:sales@pbx.example.com' }, tenantId)).id);
  const days = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'];
  const always = { name: 'Always', time_zone: 'UTC', intervals: days.map((day) => ({ day, start: '00:00', end: '24:00' })) };
  const dateRangeId = Number((await api(server, 'POST', '/date-ranges', token, always, tenantId)).id);
  const planId = Number((await api(server, 'POST', '/visual-plans', token, { name: 'Bench IVR' }, tenantId)).id);
  const saved = await api(server, 'PUT', `/visual-plans/${planId}/document`, token, { base_version: 1, settings: {}, ...ivrPlan({ destinationId, dateRangeId }) });
  await api(server, 'POST', `/visual-plans/${planId}/publish`, token, { base_version: saved.version });
  await api(server, 'POST', '/numbers', token, { number: NUMBER, provider: 'twilio', voice_plan_id: planId }, tenantId);
}

/** One call on its own first, its answers checked, so that a broken path fails loudly before any figure. */
async function checkOneCall(server: ServerChild): Promise<void> {
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    autocannon({ url: server.url, requests: callRequests(), connections: 1, amount: REQUESTS_PER_CALL }, (error: unknown, answer: autocannon.Result) =>
      error ? reject(error instanceof Error ? error : new Error(String(error))) : resolve(answer),
    );
  });
  if (failedOf(result) > 0 || wrongAnswers.length > 0) throw new Error(`the checked call failed: ${JSON.stringify(result.statusCodeStats)} ${wrongAnswers.join('; ')}`);
}

// ---------------------------------------------------------------------------------------------
// Report

const fmt = (value: number, digits = 2) => (Number.isFinite(value) ? value.toLocaleString('en', { maximumFractionDigits: digits, minimumFractionDigits: digits }) : 'n/a');
const pct = (share: number) => `${Math.round(share * 100)}%`;

function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  return rows.map((row) => row.map((cell, column) => (column === 0 ? cell.padEnd(widths[column]!) : cell.padStart(widths[column]!))).join('  ')).join('\n');
}

let targetFailures = 0;
const verdict = (ok: boolean) => {
  if (!ok) targetFailures++;
  return ok ? 'PASS' : 'FAIL';
};

function report(baseline: Measurement, rows: Array<{ m: Measurement; targets: boolean }>): string {
  const header = ['figure', 'turns/s', 'calls/s', 'ratio', 'p50 ms', 'p99 ms', 'ms CPU/turn', 'ms CPU/call', 'srv CPU', 'loadgen CPU', 'load avg', 'failed', 'targets'];
  const lines = [header];
  for (const { m, targets } of rows) {
    const ratio = m.rps / baseline.rps;
    const checks = targets
      ? [
          `ratio ${verdict(ratio >= TARGET.ratio)}`,
          `p99 ${verdict(m.p99 <= TARGET.p99Ms)}`,
          `CPU/call ${verdict(m.cpuMsPerCall <= TARGET.cpuMsPerCall)}`,
        ].join(', ')
      : '';
    lines.push([
      m.name,
      fmt(m.rps, 0),
      m.calls ? fmt(m.callsPerSecond, 0) : '',
      fmt(ratio),
      fmt(m.p50),
      fmt(m.p99),
      fmt(m.cpuMsPerRequest, 3),
      m.calls ? fmt(m.cpuMsPerCall, 3) : '',
      m.serverCpu.map(pct).join(' + '),
      pct(m.loadgenCpu),
      fmt(m.load, 1),
      String(m.failed),
      checks,
    ]);
  }
  return table(lines);
}

// ---------------------------------------------------------------------------------------------
// Main

const servers = new ServerChildren(serverScript);
let dataDir: string | undefined;

async function profiled(server: ServerChild, dialect: Dialect): Promise<string> {
  const file = settings.profileOut
    ? (() => {
        const out = path.resolve(settings.profileOut);
        const ext = path.extname(out);
        fs.mkdirSync(path.dirname(out), { recursive: true });
        return `${out.slice(0, out.length - ext.length)}.${dialect}${ext}`;
      })()
    : path.join(dataDir!, `channels-${dialect}.cpuprofile`);
  await server.command({ cmd: 'profileStart' });
  const result = await load(server, settings.connections, settings.seconds, true);
  await server.command({ cmd: 'profileStop', file });
  const summary = summarize(JSON.parse(fs.readFileSync(file, 'utf8')) as CpuProfile, 25);
  return (
    `\nCPU profile of the server on ${dialect} under the calls (${fmt(result.requests.total / result.duration, 0)} turns/s while sampling every 200 µs)` +
    `${settings.profileOut ? `, saved to ${file}` : ''}\n${formatSummary(summary)}\n`
  );
}

async function main(): Promise<void> {
  if (pinning) pinSelf([LOADGEN_CPU]);
  process.stdout.write(
    `Voxplan channels bench (Twilio) — node ${process.version}, ${cpuCount} x ${os.cpus()[0]?.model ?? 'CPU'}\n` +
      `${settings.connections} calls at a time, warm-up ${settings.warmupSeconds}s + ${settings.seconds}s per figure; ` +
      `a call: ${REQUESTS_PER_CALL} signed webhook requests (turns), ${BLOCKS_PER_CALL} blocks; ` +
      (pinning ? `load generator on CPU ${LOADGEN_CPU}, server on CPU ${SERVER_CPU}\n` : 'no CPU pinning\n'),
  );
  const tempDir = fs.mkdtempSync(path.join(os.tmpdir(), 'voxplan-bench-channels-'));
  dataDir = tempDir;
  servers.onStopAll(() => fs.rmSync(tempDir, { recursive: true, force: true }));
  let postgres: string | undefined;
  const dialects: Dialect[] = settings.dialect === 'both' ? ['sqlite', 'postgres'] : [settings.dialect];
  if (dialects.includes('postgres')) {
    process.stderr.write('starting a throwaway PostgreSQL server\n');
    const started = await startPostgres();
    servers.onStopAll(() => started.stop());
    postgres = started.url;
  }
  const serverCpu = pinning ? SERVER_CPU : undefined;

  const hello = await servers.start('hello', {}, serverCpu);
  const helloFirst = await measure('hello-world GET / (first)', [hello], false);
  await servers.stop(hello);

  const rows: Array<{ m: Measurement; targets: boolean }> = [];
  let profileText = '';
  let instancesText = '';
  for (const dialect of dialects) {
    const env: NodeJS.ProcessEnv = {
      BENCH_DATA_DIR: fs.mkdtempSync(path.join(dataDir, `${dialect}-`)),
      BENCH_PUBLIC_URL: PUBLIC_URL,
      BENCH_MASTER_KEY: randomBytes(32).toString('hex'),
    };
    if (dialect === 'postgres') env.BENCH_DATABASE_URL = (await createTestDatabase(postgres!)).url;
    process.stderr.write(`voxplan on ${dialect}\n`);
    const app = await servers.start('channels', env, serverCpu);
    await seed(app);
    await checkOneCall(app);
    rows.push({ m: await measure(`Twilio calls, ${dialect}`, [app], true), targets: dialect === 'sqlite' });
    if (settings.profile) profileText += await profiled(app, dialect);
    await servers.stop(app);

    if (dialect === 'postgres' && settings.instances) {
      // Every process may use either core here, the load generator too: one instance against two.
      if (pinning) pinSelf('all');
      const first = await servers.start('channels', env, undefined);
      const one = await measure('PostgreSQL, 1 instance (unpinned)', [first], true);
      const secondDir = fs.mkdtempSync(path.join(dataDir, `${dialect}-b-`));
      const second = await servers.start('channels', { ...env, BENCH_DATA_DIR: secondDir }, undefined);
      const two = await measure('PostgreSQL, 2 instances (unpinned)', [first, second], true);
      await Promise.all([servers.stop(first), servers.stop(second)]);
      if (pinning) pinSelf([LOADGEN_CPU]);
      rows.push({ m: one, targets: false }, { m: two, targets: false });
      const grows = two.callsPerSecond > one.callsPerSecond;
      instancesText =
        `\nTwo instances on PostgreSQL (calls spread over them, ${settings.connections / 2} calls at a time each): ` +
        `${fmt(one.callsPerSecond, 0)} → ${fmt(two.callsPerSecond, 0)} calls/s (×${fmt(two.callsPerSecond / one.callsPerSecond)}), ` +
        `${fmt(one.cpuMsPerCall, 3)} → ${fmt(two.cpuMsPerCall, 3)} ms of Node CPU a call; calls/s grow with the instances: ${verdict(grows)}.\n` +
        `This machine has ${cpuCount} cores for the instances, PostgreSQL and the load generator together (the load generator used ` +
        `${pct(two.loadgenCpu)} of a core, the instances ${two.serverCpu.map(pct).join(' + ')}, load average ${fmt(two.load, 1)}): ` +
        `a second instance can only take what PostgreSQL and the load generator leave of the cores, so twice one is out of reach here; ` +
        `the figure shows whether calls spread without one instance holding the other back, not the gain on machines of their own.\n`;
    }
  }

  const helloAgain = await servers.start('hello', {}, serverCpu);
  const helloLast = await measure('hello-world GET / (last)', [helloAgain], false);
  await servers.stop(helloAgain);
  const baseline = helloLast.rps > helloFirst.rps ? helloLast : helloFirst;

  process.stdout.write(`\n${report(baseline, [{ m: helloFirst, targets: false }, { m: helloLast, targets: false }, ...rows])}\n`);
  process.stdout.write(instancesText);
  process.stdout.write(profileText);
  process.stdout.write(
    `\nturns/s = webhook requests a second (${REQUESTS_PER_CALL} a call); ratio = turns/s ÷ the better hello-world req/s; ` +
      `ms CPU/call = the server process's CPU (user + system, /proc) over the measured run ÷ calls; on PostgreSQL the Node server's alone.\n` +
      `srv CPU / loadgen CPU = share of one core used by each server / by autocannon; a server well under 100% with a high load average was held back by other work on the machine.\n` +
      `Targets (SQLite): ratio ≥ ${TARGET.ratio}, p99 ≤ ${TARGET.p99Ms} ms, ≤ ${TARGET.cpuMsPerCall} ms of server CPU a call.\n`,
  );
}

let exitCode = 0;
process.on('SIGINT', () => {
  void servers.stopAll().finally(() => process.exit(130));
});
try {
  await main();
  if (wrongAnswers.length > 0) {
    process.stdout.write(`\n!!!!!!!! FAILED REQUESTS OR WRONG ANSWERS — THE NUMBERS ABOVE ARE MEANINGLESS !!!!!!!!\n${wrongAnswers.map((w) => `  ${w}`).join('\n')}\n`);
    exitCode = 1;
  } else if (targetFailures > 0) {
    process.stdout.write(`\n${targetFailures} target(s) missed (marked FAIL above).\n`);
    if (settings.strict) exitCode = 3;
  }
} catch (error) {
  process.stderr.write(`\nbench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  exitCode = 1;
} finally {
  await servers.stopAll();
}
process.exit(exitCode);

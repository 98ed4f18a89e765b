/**
 * Asterisk channel bench: `npm run bench:channels:agi` (bench/README.md, "Channels: Asterisk").
 *
 * Whole calls through the FastAGI listener of the real app (a child process, bench/api/server.ts
 * `channels` with BENCH_AGI=1) on the 20-block IVR of bench:channels: BENCH_CONNECTIONS clients here
 * play Asterisk, each placing one call after another over TCP as the AGI documentation describes
 * (the variables block, then every command answered `200 result=…`): a key during the main menu's
 * prompt (1), another in the sales menu (2), the Dial answered BUSY, the survey's key (5), the hang-up.
 * A bare Fastify hello-world measured in the same run is the baseline; the floor (bench/api/floor.ts
 * `agi-floor`: the same commands, one upsert a turn, no engine) is what no design can beat.
 *
 * Then the same calls through a real Asterisk 22.10.1 (apps/server/test/asterisk-pbx.ts, built by the
 * vendored build.sh): BENCH_PBX_CALLS calls at a time placed with `channel originate`, the caller's
 * side pressing 1 every 0.3 s (main menu 1, sales menu 1, survey 1: 18 blocks, as above), the
 * destination a busy Local channel, the prompts fetched by the PBX from the server's PUBLIC_URL and
 * played for real; against the app on each database and against the floor. Calls there last as long
 * as their audio: the figures are the server's (and Asterisk's) CPU per call, and calls a second.
 * Environment:
 *   BENCH_SECONDS=5           measured seconds per figure (after BENCH_WARMUP_SECONDS=3 of warm-up)
 *   BENCH_CONNECTIONS=32      calls in progress at once (and hello-world connections)
 *   BENCH_DIALECT=both        sqlite | postgres | both (PostgreSQL: a throwaway server of its own)
 *   BENCH_PIN=1               0: no CPU pinning
 *   BENCH_PBX_CALLS=16        calls at a time through the real Asterisk (0: no real-Asterisk figures)
 *   BENCH_PBX_SECONDS=20      seconds of calls placed through it per figure (those placed are awaited)
 * The issue sets no target for these calls: the figures are reported beside the Twilio calls' (bench:channels).
 * Failed calls exit 1.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { apiCall } from '../lib/api-call.ts';
import { runBench } from '../lib/bench-main.ts';
import { benchDatabases, dialectsOf } from '../lib/dialects.ts';
import { envNumber } from '../lib/env.ts';
import { procCpuSecondsOf } from '../lib/proc-cpu.ts';
import { fmt, type LoadFigures, measureLoad, pct, percentile, table } from '../lib/load.ts';
import { canPin, cpuCount, delay, LOADGEN_CPU, pinSelf, SERVER_CPU, type ServerChild, ServerChildren } from '../lib/server-child.ts';
import { asteriskBinary, freePort, type Pbx, startPbx, until } from '../../apps/server/test/asterisk-pbx.ts';
import { BLOCKS_PER_CALL, seedIvr } from './ivr-plan.ts';

const settings = {
  seconds: envNumber('BENCH_SECONDS', 5),
  warmupSeconds: envNumber('BENCH_WARMUP_SECONDS', 3),
  connections: envNumber('BENCH_CONNECTIONS', 32),
  dialects: dialectsOf(process.env.BENCH_DIALECT),
  pin: process.env.BENCH_PIN !== '0',
  pbxCalls: envNumber('BENCH_PBX_CALLS', 16),
  pbxSeconds: envNumber('BENCH_PBX_SECONDS', 20),
};

/** Turns of a call: its start, three keys and the dial's end. */
const TURNS_PER_CALL = 5;

const serverScript = path.resolve(import.meta.dirname, '../api/server.ts');
const pinning = settings.pin && canPin();
const NUMBER = '+551140000001';
const failures: string[] = [];
const note = (what: string) => {
  if (failures.length < 5) failures.push(what);
};

interface CallFigures {
  calls: number;
  /** Milliseconds from the answer that made a turn (a key, the dial's status; the variables block) to the turn's first command. */
  turnLatencies: number[];
}

/**
 * One call as Asterisk places it; resolves when the server closes the connection. The keys go in
 * as the prompts that may be cut short are played, so each menu gets one without waiting.
 */
function placeCall(port: number, figures: CallFigures, serial: number): Promise<void> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    const keys = ['1', '2', '5'];
    let buffered = '';
    let sentAt = performance.now();
    let waitingTurn = true;
    let dialled = false;
    let hungUp = false;
    socket.setEncoding('utf8');
    socket.setNoDelay(true);
    const answer = (line: string, makesTurn: boolean) => {
      waitingTurn = makesTurn;
      sentAt = performance.now();
      socket.write(`${line}\n`);
    };
    socket.on('connect', () => {
      sentAt = performance.now();
      socket.write(
        `agi_network: yes\nagi_network_script: ${NUMBER}\nagi_request: agi://127.0.0.1/${NUMBER}\nagi_channel: PJSIP/bench-${serial}\n` +
          `agi_uniqueid: ${serial}\nagi_callerid: +14155550100\nagi_dnid: unknown\nagi_extension: s\nagi_context: from-trunk\n\n`,
      );
    });
    socket.on('data', (chunk: string) => {
      buffered += chunk;
      let newline = buffered.indexOf('\n');
      while (newline !== -1) {
        const command = buffered.slice(0, newline);
        buffered = buffered.slice(newline + 1);
        if (waitingTurn) figures.turnLatencies.push(performance.now() - sentAt);
        if (command.startsWith('STREAM FILE') && !command.endsWith('""')) {
          const key = keys.shift();
          answer(key ? `200 result=${key.charCodeAt(0)} endpos=800` : '200 result=0 endpos=8000', key !== undefined);
        } else if (command.startsWith('WAIT FOR DIGIT')) {
          answer('200 result=35', false);
        } else if (command.startsWith('EXEC Dial')) {
          dialled = true;
          answer('200 result=0', false);
        } else if (command === 'GET VARIABLE DIALSTATUS') {
          answer('200 result=1 (BUSY)', true);
        } else if (command.startsWith('EXEC Hangup') || command === 'HANGUP') {
          hungUp = true;
          answer('200 result=-1', false);
        } else {
          answer('200 result=0', false);
        }
        newline = buffered.indexOf('\n');
      }
    });
    socket.on('error', (error) => note(`call ${serial}: ${error.message}`));
    socket.on('close', () => {
      if (dialled && hungUp && keys.length === 0) figures.calls += 1;
      else note(`call ${serial} ended before its end (dialled ${dialled}, hung up ${hungUp}, keys left ${keys.length})`);
      resolve();
    });
  });
}

let serial = 0;
/** `connections` clients placing calls one after another for `seconds`. */
async function runCalls(port: number, connections: number, seconds: number): Promise<CallFigures & { duration: number }> {
  const figures: CallFigures = { calls: 0, turnLatencies: [] };
  const started = performance.now();
  const deadline = started + seconds * 1000;
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (performance.now() < deadline) await placeCall(port, figures, (serial += 1));
    }),
  );
  return { ...figures, duration: (performance.now() - started) / 1000 };
}

interface AgiMeasurement {
  name: string;
  callsPerSecond: number;
  turnsPerSecond: number;
  p50: number;
  p99: number;
  cpuMsPerCall: number;
  serverCpu: number;
  loadgenCpu: number;
  load: number;
}

async function measureAgi(name: string, server: ServerChild): Promise<AgiMeasurement> {
  const port = server.ready.agiPort;
  if (port === undefined) throw new Error('the server has no AGI listener');
  process.stderr.write(`  ${name}: warm-up ${settings.warmupSeconds}s, measure ${settings.seconds}s\n`);
  if (settings.warmupSeconds > 0) await runCalls(port, settings.connections, settings.warmupSeconds);
  const cpuBefore = server.cpuSeconds() ?? Number.NaN;
  const loadgenBefore = process.cpuUsage();
  const run = await runCalls(port, settings.connections, settings.seconds);
  const loadgen = process.cpuUsage(loadgenBefore);
  const cpu = (server.cpuSeconds() ?? Number.NaN) - cpuBefore;
  const sorted = Float64Array.from(run.turnLatencies).sort();
  return {
    name,
    callsPerSecond: run.calls / run.duration,
    turnsPerSecond: (run.calls * TURNS_PER_CALL) / run.duration,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    cpuMsPerCall: (cpu * 1000) / run.calls,
    serverCpu: cpu / run.duration,
    loadgenCpu: (loadgen.user + loadgen.system) / 1e6 / run.duration,
    load: os.loadavg()[0] ?? Number.NaN,
  };
}

/** The caller presses 1 every 0.3 s (a key is heard only while a prompt that takes keys plays); the destination is busy. */
const PBX_DIALPLAN = `
[caller]
exten => bench,1,Answer()
 same => n(again),SendDTMF(1)
 same => n,Wait(0.3)
 same => n,Goto(again)
[from-voxplan]
exten => 2002,1,Busy(10)
`;

interface PbxMeasurement {
  name: string;
  calls: number;
  callsPerSecond: number;
  cpuMsPerCall: number;
  pbxCpuMsPerCall: number;
  load: number;
}

const completedCalls = (pbx: Pbx) => (pbx.log().match(/AGI Script agi:\/\/\S+ completed/g) ?? []).length;

/** One call through the PBX, with the AGI lines logged: it must dial, hear BUSY and be hung up by the plan. */
async function checkPbxCall(pbx: Pbx): Promise<void> {
  await pbx.cli('agi set debug on');
  const from = pbx.log().length;
  await pbx.originate('bench', NUMBER.slice(1));
  await pbx.waitForLog(/AGI Script agi:\/\/\S+ completed/, { from, timeoutMs: 120_000 });
  const lines = pbx.log().slice(from);
  if (!/AGI Tx >> 200 result=1 \(BUSY\)/.test(lines) || !/AGI Rx << EXEC Hangup 16/.test(lines)) {
    throw new Error(`the checked call through Asterisk did not go busy and end: ${lines.split('\n').filter((line) => line.includes('AGI Rx')).join(' | ')}`);
  }
  await pbx.cli('agi set debug off');
}

/** BENCH_PBX_CALLS calls kept in progress through a real Asterisk for BENCH_PBX_SECONDS, then the last ones awaited. */
async function measureThroughPbx(name: string, server: ServerChild, binary: string): Promise<PbxMeasurement> {
  const pbx = await startPbx({ binary, agiPort: server.ready.agiPort!, dialplan: PBX_DIALPLAN });
  try {
    await checkPbxCall(pbx);
    process.stderr.write(`  ${name}: ${settings.pbxCalls} calls at a time for ${settings.pbxSeconds}s\n`);
    const doneBefore = completedCalls(pbx);
    const cpuBefore = server.cpuSeconds() ?? Number.NaN;
    const pbxBefore = procCpuSecondsOf(pbx.pid);
    const started = performance.now();
    let placed = 0;
    while (performance.now() - started < settings.pbxSeconds * 1000) {
      const inProgress = placed - (completedCalls(pbx) - doneBefore);
      for (let call = inProgress; call < settings.pbxCalls; call += 1, placed += 1) await pbx.originate('bench', NUMBER.slice(1));
      await delay(200);
    }
    await until('the calls placed to end', () => (completedCalls(pbx) - doneBefore >= placed ? true : undefined), 180_000);
    const seconds = (performance.now() - started) / 1000;
    const cpu = (server.cpuSeconds() ?? Number.NaN) - cpuBefore;
    return {
      name,
      calls: placed,
      callsPerSecond: placed / seconds,
      cpuMsPerCall: (cpu * 1000) / placed,
      pbxCpuMsPerCall: ((procCpuSecondsOf(pbx.pid) - pbxBefore) * 1000) / placed,
      load: os.loadavg()[0] ?? Number.NaN,
    };
  } finally {
    await pbx.stop();
  }
}

function pbxReport(rows: PbxMeasurement[], floor: PbxMeasurement | undefined): string {
  const lines = [['figure', 'calls', 'calls/s', 'ms CPU/call', 'vs floor', 'Asterisk ms CPU/call', 'load avg']];
  for (const m of rows) {
    lines.push([m.name, String(m.calls), fmt(m.callsPerSecond, 2), fmt(m.cpuMsPerCall, 3), floor ? fmt(m.cpuMsPerCall / floor.cpuMsPerCall, 2) : '', fmt(m.pbxCpuMsPerCall, 1), fmt(m.load, 1)]);
  }
  return table(lines);
}

function report(baseline: LoadFigures, hellos: LoadFigures[], rows: AgiMeasurement[], floor: AgiMeasurement | undefined): string {
  const lines = [['figure', 'req or turns/s', 'calls/s', 'ratio', 'p50 ms', 'p99 ms', 'ms CPU/call', 'CPU vs floor', 'srv CPU', 'loadgen CPU', 'load avg']];
  for (const hello of hellos) {
    lines.push([hello.name, fmt(hello.rps, 0), '', fmt(hello.rps / baseline.rps), fmt(hello.p50), fmt(hello.p99), '', '', pct(hello.serverCpu[0] ?? 0), pct(hello.loadgenCpu), fmt(hello.load, 1)]);
  }
  for (const m of rows) {
    const vsFloor = floor ? fmt(m.cpuMsPerCall / floor.cpuMsPerCall, 2) : '';
    lines.push([m.name, fmt(m.turnsPerSecond, 0), fmt(m.callsPerSecond, 0), fmt(m.turnsPerSecond / baseline.rps), fmt(m.p50), fmt(m.p99), fmt(m.cpuMsPerCall, 3), vsFloor, pct(m.serverCpu), pct(m.loadgenCpu), fmt(m.load, 1)]);
  }
  return table(lines);
}

const servers = new ServerChildren(serverScript);

async function main(): Promise<void> {
  if (pinning) pinSelf([LOADGEN_CPU]);
  process.stdout.write(
    `Voxplan channels bench (Asterisk FastAGI) — node ${process.version}, ${cpuCount} x ${os.cpus()[0]?.model ?? 'CPU'}\n` +
      `${settings.connections} calls at a time, warm-up ${settings.warmupSeconds}s + ${settings.seconds}s per figure; ` +
      `a call: one AGI connection, ${TURNS_PER_CALL} turns, ${BLOCKS_PER_CALL} blocks; ` +
      (pinning ? `load generator on CPU ${LOADGEN_CPU}, server on CPU ${SERVER_CPU}\n` : 'no CPU pinning\n'),
  );
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'voxplan-bench-agi-'));
  servers.onStopAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));
  const databaseUrl = await benchDatabases(servers, settings.dialects);
  const serverCpu = pinning ? SERVER_CPU : undefined;
  const loadOptions = { connections: settings.connections, seconds: settings.seconds, warmupSeconds: settings.warmupSeconds, failures };

  const hello = await servers.start('hello', {}, serverCpu);
  const helloFirst = await measureLoad('hello-world GET / (first)', [hello], {}, loadOptions);
  await servers.stop(hello);

  const asterisk = settings.pbxCalls > 0 ? asteriskBinary() : { missing: 'BENCH_PBX_CALLS=0' };
  if ('missing' in asterisk) process.stderr.write(`no real-Asterisk figures: ${asterisk.missing}\n`);
  const pbxRows: PbxMeasurement[] = [];
  let pbxFloor: PbxMeasurement | undefined;

  // The floor, driven by the hand-written peer and by the real Asterisk.
  const floorServer = await servers.start('agi-floor', { BENCH_DATA_DIR: fs.mkdtempSync(path.join(dataDir, 'floor-')), BENCH_HTTP_PORT: String(await freePort()) }, serverCpu);
  const floorCheck = await runCalls(floorServer.ready.agiPort!, 1, 0.001);
  if (floorCheck.calls !== 1) throw new Error(`the floor's checked call failed: ${failures.join('; ')}`);
  const floor = await measureAgi('floor (SQLite; no engine)', floorServer);
  if ('binary' in asterisk) {
    pbxFloor = await measureThroughPbx('Asterisk → floor (SQLite; no engine)', floorServer, asterisk.binary);
    pbxRows.push(pbxFloor);
  }
  await servers.stop(floorServer);

  const rows: AgiMeasurement[] = [floor];
  for (const dialect of settings.dialects) {
    // The real Asterisk fetches the prompts from PUBLIC_URL: the server's own port.
    const httpPort = await freePort();
    const env: NodeJS.ProcessEnv = {
      BENCH_DATA_DIR: fs.mkdtempSync(path.join(dataDir, `${dialect}-`)),
      BENCH_HTTP_PORT: String(httpPort),
      BENCH_PUBLIC_URL: `http://127.0.0.1:${httpPort}`,
      BENCH_MASTER_KEY: randomBytes(32).toString('hex'),
      BENCH_AGI: '1',
    };
    const url = await databaseUrl(dialect);
    if (url !== undefined) env.BENCH_DATABASE_URL = url;
    process.stderr.write(`voxplan on ${dialect}\n`);
    const app = await servers.start('channels', env, serverCpu);
    await seedIvr(app, { e164: NUMBER, provider: 'asterisk' }, async (token, tenantId) => {
      // A tenant without entries accepts no AGI call: the load generator's address.
      await apiCall(app, 'POST', '/acl', token, { name: 'bench PBX', address: '127.0.0.1' }, tenantId);
    }, 'tel:2002;phone-context=pbx.example.com');
    // One call on its own first, so that a broken path fails loudly before any figure.
    const check = await runCalls(app.ready.agiPort!, 1, 0.001);
    if (check.calls !== 1) throw new Error(`the checked call failed: ${failures.join('; ')}`);
    rows.push(await measureAgi(`AGI calls, ${dialect}`, app));
    if ('binary' in asterisk) pbxRows.push(await measureThroughPbx(`Asterisk → AGI calls, ${dialect}`, app, asterisk.binary));
    await servers.stop(app);
    await delay(200);
  }

  const helloAgain = await servers.start('hello', {}, serverCpu);
  const helloLast = await measureLoad('hello-world GET / (last)', [helloAgain], {}, loadOptions);
  await servers.stop(helloAgain);
  const baseline = helloLast.rps > helloFirst.rps ? helloLast : helloFirst;

  process.stdout.write(`\n${report(baseline, [helloFirst, helloLast], rows, floor)}\n`);
  process.stdout.write(
    `\nturns/s = AGI turns a second (${TURNS_PER_CALL} a call: the variables block and each key or dial status the plan waited on); ` +
      `ratio = turns/s ÷ the better hello-world req/s; p50/p99 = from the answer that made a turn to the turn's first command; ` +
      `ms CPU/call = the server process's CPU (user + system, /proc) over the measured run ÷ calls; on PostgreSQL the Node server's alone; ` +
      `CPU vs floor = ms CPU/call ÷ the floor's (bench/api/floor.ts agi-floor: the same commands, one upsert a turn, no engine).\n`,
  );
  if (pbxRows.length > 0) {
    process.stdout.write(`\nThrough a real Asterisk 22.10.1 (${settings.pbxCalls} calls at a time, prompts fetched and played for real):\n${pbxReport(pbxRows, pbxFloor)}\n`);
    process.stdout.write(
      `calls/s is bounded by the calls' audio (each lasts its prompts' length), not by the server; ms CPU/call = the server's CPU ÷ calls ` +
        `(the prompts' fetches included); vs floor = ÷ the floor's through the same PBX; Asterisk ms CPU/call = the PBX process's.\n`,
    );
  }
}

await runBench(servers, main, () => ({ failures, targetFailures: 0, strict: false }));

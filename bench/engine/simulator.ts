/**
 * The engine end to end (bench/README.md): new sessions per second through the simulator API on
 * SQLite, and resident memory per live chat session. The server is the real app in a child process
 * (simulator-server.ts), pinned to its own core when taskset is there; this process seeds it
 * through the API, drives WebSockets at it and serves the CRM lookup the plan makes.
 *
 * The plan is fixtures/plans/benchmark-ivr.json, the in-process bench's: a session's first turn
 * generates a protocol, evaluates a date range, makes an HTTP lookup and stops at a voice menu;
 * the bench then hangs up, which ends it and writes its report.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { presetIntervals } from '@voxplan/contracts';
import { simulatorProtocol, type SimulatorServerFrame } from '@voxplan/contracts/simulator';
import WebSocket from 'ws';
import { BENCH_ADMIN, type RuntimeLoopResult, type ServerCommand, type ServerMemory } from './simulator-protocol.ts';

const TARGET_SESSIONS_PER_SECOND = 1_000;
const TARGET_BYTES_PER_LIVE_SESSION = 20 * 1024;

const settings = {
  seconds: Number(process.env.BENCH_SECONDS ?? 5),
  /**
   * Long enough for V8 to have compiled what a session runs: a session runs much of its code once,
   * so it is hot only after thousands of sessions. After 1 s, the optimizing compiler still took
   * about 0.29 ms of each of the IVR's measured sessions (perf), and the figure came out 30 to 50 % low.
   */
  warmupSeconds: Number(process.env.BENCH_WARMUP_SECONDS ?? 6),
  connections: Number(process.env.BENCH_CONNECTIONS ?? 16),
  liveSessions: Number(process.env.BENCH_LIVE_SESSIONS ?? 10_000),
  pin: process.env.BENCH_PIN !== '0',
  strict: process.env.BENCH_STRICT === '1',
  /** A folder: the server writes a V8 CPU profile of each measured run there (`npx tsx bench/api/cpu-profile.ts FILE` summarises one). */
  profileDir: process.env.BENCH_PROFILE_DIR,
};

const here = import.meta.dirname;
const ivr = JSON.parse(fs.readFileSync(path.resolve(here, '../../fixtures/plans/benchmark-ivr.json'), 'utf8')) as {
  settings: unknown;
  nodes: Array<{ id: string; type: string; data: Record<string, unknown> }>;
  edges: unknown[];
};

function canPin(): boolean {
  if (!settings.pin || os.availableParallelism() < 2) return false;
  try {
    execFileSync('taskset', ['-p', String(process.pid)], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}
const pinning = canPin();
if (pinning) execFileSync('taskset', ['-a', '-p', '-c', '0', String(process.pid)], { stdio: 'ignore' });

// ---------------------------------------------------------------------------------------------
// The server child

interface Server {
  url: string;
  command<T>(command: ServerCommand): Promise<T>;
  stop(): Promise<void>;
}

async function startServer(): Promise<Server> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'voxplan-bench-simulator-'));
  const args = ['--expose-gc', '--import', import.meta.resolve('tsx'), path.join(here, 'simulator-server.ts')];
  const child: ChildProcess = spawn(pinning ? 'taskset' : process.execPath, pinning ? ['-c', '1', process.execPath, ...args] : args, {
    env: { ...process.env, BENCH_DATA_DIR: dataDir },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const pending = new Map<number, (reply: { ok: boolean; result?: unknown; error?: string }) => void>();
  let serial = 0;
  const ready = new Promise<number>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the server child exited (${code}) before it listened`)));
    child.on('message', (message: { ready?: true; port?: number; id?: number; ok?: boolean }) => {
      if (message.ready) resolve(message.port!);
      else pending.get(message.id!)?.(message as { ok: boolean });
    });
  });
  const port = await ready;
  return {
    url: `http://127.0.0.1:${port}`,
    command<T>(command: ServerCommand) {
      const id = ++serial;
      return new Promise<T>((resolve, reject) => {
        pending.set(id, (reply) => {
          pending.delete(id);
          if (reply.ok) resolve(reply.result as T);
          else reject(new Error(reply.error));
        });
        child.send({ id, ...command });
      });
    },
    async stop() {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.disconnect();
      await exited;
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Seeding through the API

async function api(server: Server, method: string, url: string, token: string | null, body?: unknown, tenantId?: number): Promise<Record<string, unknown>> {
  const response = await fetch(`${server.url}/api/v1${url}`, {
    method,
    headers: {
      ...(body !== undefined && { 'content-type': 'application/json' }),
      ...(token && { authorization: `Bearer ${token}` }),
      ...(tenantId !== undefined && { 'x-tenant-id': String(tenantId) }),
    },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${url}: ${response.status} ${text.slice(0, 300)}`);
  return JSON.parse(text) as Record<string, unknown>;
}

interface Seeded {
  token: string;
  tenantId: number;
  planId: number;
  /** start → voice menu and nothing else: the floor of the path, what the simulator and the session runtime cost alone. */
  menuPlanId: number;
}

/** A tenant with the IVR's destination and date range, the IVR itself (draft and published), and plan requests allowed to reach loopback. */
async function seed(server: Server, crmUrl: string): Promise<Seeded> {
  const token = String((await api(server, 'POST', '/login', null, BENCH_ADMIN)).token);
  const tenantId = Number((await api(server, 'POST', '/tenants', token, { name: 'bench' })).id);
  const destination = await api(server, 'POST', '/destinations', token, { name: 'Sales', kind: 'voice', uri: 'sip:sales@pbx.example.com' }, tenantId);
  const dateRange = await api(server, 'POST', '/date-ranges', token, { name: 'Always', time_zone: 'UTC', intervals: presetIntervals('always') }, tenantId);
  const [loopback] = (await api(server, 'GET', `/configurations?filter=${encodeURIComponent(JSON.stringify({ where: { name: 'outbound_allow_loopback' } }))}`, token)) as unknown as Array<{ id: number }>;
  await api(server, 'PATCH', `/configurations/${loopback!.id}`, token, { value: 'true' });

  const nodes = ivr.nodes.map((node) => {
    if (node.type === 'destination') return { ...node, data: { ...node.data, destination_id: destination.id } };
    if (node.type === 'date_range') return { ...node, data: { ...node.data, date_range_id: dateRange.id } };
    if (node.type === 'http_request') return { ...node, data: { ...node.data, url: `${crmUrl}/api/customers` } };
    return node;
  });
  const planId = Number((await api(server, 'POST', '/visual-plans', token, { name: 'Benchmark IVR' }, tenantId)).id);
  const saved = await api(server, 'PUT', `/visual-plans/${planId}/document`, token, { base_version: 1, settings: ivr.settings, nodes, edges: ivr.edges });
  await api(server, 'POST', `/visual-plans/${planId}/publish`, token, { base_version: saved.version });
  const menuPlanId = Number((await api(server, 'POST', '/visual-plans', token, { name: 'Menu only' }, tenantId)).id);
  const menuNodes = ivr.nodes.filter((node) => node.id === 'start' || node.id === 'menu');
  await api(server, 'PUT', `/visual-plans/${menuPlanId}/document`, token, {
    base_version: 1,
    settings: ivr.settings,
    nodes: [{ ...menuNodes[0]!, data: {} }, menuNodes[1]],
    edges: [{ id: 'e1', source: 'start', source_exit: 'next', target: 'menu' }],
  });
  return { token, tenantId, planId, menuPlanId };
}

// ---------------------------------------------------------------------------------------------
// Simulator sockets

/** One simulator socket: sends a frame and resolves with the frames up to its `turn` frame. */
class Panel {
  private waiting: ((frames: SimulatorServerFrame[]) => void) | null = null;
  private frames: SimulatorServerFrame[] = [];

  private constructor(readonly socket: WebSocket) {
    socket.on('message', (data) => {
      const frame = JSON.parse(data.toString()) as SimulatorServerFrame;
      this.frames.push(frame);
      if (frame.type === 'turn' || frame.type === 'error') {
        const frames = this.frames;
        this.frames = [];
        this.waiting?.(frames);
      }
    });
  }

  static open(server: Server, seeded: Seeded, planId = seeded.planId): Promise<Panel> {
    const url = `${server.url.replace('http', 'ws')}/api/v1/visual-plans/${planId}/simulator`;
    const socket = new WebSocket(url, [simulatorProtocol], { headers: { authorization: `Bearer ${seeded.token}` }, perMessageDeflate: false });
    return new Promise((resolve, reject) => {
      socket.once('open', () => resolve(new Panel(socket)));
      socket.once('error', reject);
    });
  }

  send(frame: object): Promise<SimulatorServerFrame[]> {
    return new Promise((resolve) => {
      this.waiting = resolve;
      this.socket.send(JSON.stringify(frame));
    });
  }
}

const entered = (frames: SimulatorServerFrame[]) => frames.flatMap((frame) => (frame.type === 'node' ? [frame.node.node_id] : []));
const lastTurn = (frames: SimulatorServerFrame[]) => frames.at(-1);

/** One whole simulated call, checked: the first turn reaches the menu through the lookup, the hangup ends it. */
async function checkCall(panel: Panel, channel: 'voice' | 'chat'): Promise<void> {
  const first = await panel.send({ type: 'start', channel });
  const path = entered(first).join(' ');
  if (!path.endsWith('lookup known greet menu') || lastTurn(first)?.type !== 'turn') throw new Error(`the first turn went ${path}: ${JSON.stringify(lastTurn(first))}`);
  const end = await panel.send({ type: 'hangup', id: 'bye' });
  const ended = end.find((frame) => frame.type === 'ended');
  if (ended?.type !== 'ended' || ended.report.disposition !== 'abandoned') throw new Error(`the hangup answered ${JSON.stringify(end)}`);
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? Number.NaN;

async function throughput(server: Server, seeded: Seeded, planId: number, name: string) {
  const panels = await Promise.all(Array.from({ length: settings.connections }, () => Panel.open(server, seeded, planId)));
  if (planId === seeded.planId) {
    await checkCall(panels[0]!, 'voice');
    await checkCall(panels[0]!, 'chat');
  }

  const run = async (seconds: number) => {
    const deadline = performance.now() + seconds * 1000;
    const startLatencies: number[] = [];
    let sessions = 0;
    const cpuBefore = await server.command<NodeJS.CpuUsage>({ cmd: 'cpu' });
    const benchCpuBefore = process.cpuUsage();
    const wallStart = performance.now();
    await Promise.all(
      panels.map(async (panel) => {
        for (let n = 0; performance.now() < deadline; n++) {
          const began = performance.now();
          const first = await panel.send({ type: 'start', channel: 'voice' });
          startLatencies.push(performance.now() - began);
          const end = await panel.send({ type: 'hangup', id: `h${n}` });
          if (lastTurn(first)?.type !== 'turn' || lastTurn(end)?.type !== 'turn') throw new Error(`a session failed: ${JSON.stringify([lastTurn(first), lastTurn(end)])}`);
          sessions++;
        }
      }),
    );
    const wallS = (performance.now() - wallStart) / 1000;
    const benchCpu = process.cpuUsage(benchCpuBefore);
    const cpuAfter = await server.command<NodeJS.CpuUsage>({ cmd: 'cpu' });
    const serverCpuS = (cpuAfter.user - cpuBefore.user + cpuAfter.system - cpuBefore.system) / 1e6;
    const benchCpuS = (benchCpu.user + benchCpu.system) / 1e6;
    startLatencies.sort((a, b) => a - b);
    return { sessions, wallS, serverCpuS, benchCpuS, p50: percentile(startLatencies, 0.5), p95: percentile(startLatencies, 0.95) };
  };
  await run(settings.warmupSeconds);
  if (settings.profileDir) await server.command({ cmd: 'profileStart' });
  const result = await run(settings.seconds);
  if (settings.profileDir) {
    fs.mkdirSync(settings.profileDir, { recursive: true });
    const { file } = await server.command<{ file: string }>({ cmd: 'profileStop', file: path.resolve(settings.profileDir, `simulator-${name}.cpuprofile`) });
    console.log(`  (CPU profile of the server: ${file})`);
  }
  await Promise.all(panels.map((panel) => new Promise((resolve) => (panel.socket.once('close', resolve), panel.socket.close()))));
  return result;
}

/** The same sessions with no socket: the session runtime driven inside the server process. */
async function withoutSimulator(server: Server, seeded: Seeded, planId: number): Promise<RuntimeLoopResult> {
  const loop = (seconds: number) =>
    server.command<RuntimeLoopResult>({ cmd: 'runtimeLoop', tenantId: seeded.tenantId, planId, seconds, concurrency: settings.connections });
  await loop(settings.warmupSeconds);
  return loop(settings.seconds);
}

const cpuMsPerSession = (cpuSeconds: number, sessions: number) => (cpuSeconds / sessions) * 1000;
const kib = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`;
const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MiB`;

/** Resident memory the server gains per live chat: `open` makes `count` of them. */
async function memoryPerLiveChat(server: Server, seeded: Seeded, open: (count: number) => Promise<void>) {
  const before = await server.command<ServerMemory>({ cmd: 'memory' });
  await open(settings.liveSessions);
  const after = await server.command<ServerMemory>({ cmd: 'memory' });
  const live = after.waitingSessions - before.waitingSessions;
  if (live !== settings.liveSessions) throw new Error(`${live} chats are waiting, not ${settings.liveSessions}`);
  return { before, after, perSession: (after.rss - before.rss) / live, heapPerSession: (after.heapUsed - before.heapUsed) / live };
}

async function main() {
  const crm = http.createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ customer: { name: 'Ana', tier: 'gold' } }));
  });
  await new Promise<void>((resolve) => crm.listen(0, '127.0.0.1', resolve));
  const crmUrl = `http://127.0.0.1:${(crm.address() as AddressInfo).port}`;
  console.log(
    `engine end to end — node ${process.version}, ${os.cpus().length} x ${os.cpus()[0]?.model ?? 'CPU'}, SQLite` +
      (pinning ? ', bench on CPU 0, server on CPU 1' : ', no CPU pinning'),
  );

  // New sessions per second through the simulator.
  let server = await startServer();
  let seeded = await seed(server, crmUrl);
  const speed = await throughput(server, seeded, seeded.planId, 'ivr');
  const floor = await throughput(server, seeded, seeded.menuPlanId, 'menu-only');
  const runtimeIvr = await withoutSimulator(server, seeded, seeded.planId);
  const runtimeMenu = await withoutSimulator(server, seeded, seeded.menuPlanId);
  await server.stop();
  const perSecond = speed.sessions / speed.wallS;
  const describe = (figure: typeof speed) =>
    `${Math.round(figure.sessions / figure.wallS).toLocaleString('en')} sessions/s (${figure.sessions.toLocaleString('en')} in ${figure.wallS.toFixed(2)} s); ` +
    `server ${((figure.serverCpuS / figure.wallS) * 100).toFixed(0)} % of a core, ${cpuMsPerSession(figure.serverCpuS, figure.sessions).toFixed(2)} ms CPU a session; ` +
    `bench (the panels and the CRM stub) ${((figure.benchCpuS / figure.wallS) * 100).toFixed(0)} % of a core; ` +
    `start answered in p50 ${figure.p50.toFixed(2)} ms, p95 ${figure.p95.toFixed(2)} ms`;
  console.log(`\nnew sessions through the simulator API (${settings.connections} WebSockets; each session: start, first turn to the menu, hang-up and report)`);
  console.log(`  the IVR (protocol, date range, HTTP lookup, 9 blocks to the menu): ${describe(speed)}`);
  console.log(`  a menu-only plan (the floor: the simulator and the session runtime alone): ${describe(floor)}`);
  const describeRuntime = (figure: RuntimeLoopResult) => {
    const cpuMs = cpuMsPerSession(figure.cpuS, figure.sessions);
    return (
      `${Math.round(figure.sessions / figure.wallS).toLocaleString('en')} sessions/s, ${cpuMs.toFixed(2)} ms CPU a session: ` +
      `at most ${Math.round(1000 / cpuMs).toLocaleString('en')} a second on one core, before any socket`
    );
  };
  console.log(`  the same sessions without the simulator (the session runtime called in the server's process, the lookup still to the CRM stub):`);
  console.log(`    the IVR: ${describeRuntime(runtimeIvr)}`);
  console.log(`    the menu-only plan: ${describeRuntime(runtimeMenu)}`);
  const simulatorShareMs = (figure: typeof speed, runtime: RuntimeLoopResult) =>
    (cpuMsPerSession(figure.serverCpuS, figure.sessions) - cpuMsPerSession(runtime.cpuS, runtime.sessions)).toFixed(2);
  console.log(
    `  the simulator's own CPU a session (its frames, their writes, the sockets' reads): ` +
      `${simulatorShareMs(speed, runtimeIvr)} ms on the IVR, ${simulatorShareMs(floor, runtimeMenu)} ms on the menu-only plan`,
  );
  const speedPass = perSecond >= TARGET_SESSIONS_PER_SECOND;
  console.log(`  new sessions/s (the IVR): ${Math.round(perSecond).toLocaleString('en')}   target ≥ ${TARGET_SESSIONS_PER_SECOND.toLocaleString('en')}   ${speedPass ? 'PASS' : 'FAIL'}`);

  // Memory per live chat, on a fresh server: chats as channels keep them (stored, no socket).
  server = await startServer();
  seeded = await seed(server, crmUrl);
  let offset = 0;
  const stored = await memoryPerLiveChat(server, seeded, async (count) => {
    for (let done = 0; done < count; done += 1000) {
      await server.command({ cmd: 'startChats', tenantId: seeded.tenantId, planId: seeded.planId, count: Math.min(1000, count - done), offset });
      offset += 1000;
    }
  });
  // And chats each held open by a simulator socket.
  const panels: Panel[] = [];
  const sockets = await memoryPerLiveChat(server, seeded, async (count) => {
    for (let done = 0; done < count; done += 100) {
      const batch = await Promise.all(Array.from({ length: Math.min(100, count - done) }, () => Panel.open(server, seeded)));
      await Promise.all(batch.map((panel) => panel.send({ type: 'start', channel: 'chat' })));
      panels.push(...batch);
    }
  });
  for (const panel of panels) panel.socket.terminate();
  await server.stop();
  crm.close();

  const memoryPass = stored.perSession <= TARGET_BYTES_PER_LIVE_SESSION && sockets.perSession <= TARGET_BYTES_PER_LIVE_SESSION;
  console.log(`\nresident memory of the server per live chat session (${settings.liveSessions.toLocaleString('en')} chats waiting at the menu; RSS after full collections)`);
  console.log(
    `  chats kept by the channels (web chat, WhatsApp): RSS ${mib(stored.before.rss)} → ${mib(stored.after.rss)}, ${kib(stored.perSession)} per session (heap ${kib(stored.heapPerSession)})`,
  );
  console.log(
    `  chats each on an open simulator WebSocket:      RSS ${mib(sockets.before.rss)} → ${mib(sockets.after.rss)}, ${kib(sockets.perSession)} per session (heap ${kib(sockets.heapPerSession)})`,
  );
  console.log(`  target ≤ ${kib(TARGET_BYTES_PER_LIVE_SESSION)} per live session   ${memoryPass ? 'PASS' : 'FAIL'}`);
  if (settings.strict && !(speedPass && memoryPass)) process.exitCode = 3;
}

await main();

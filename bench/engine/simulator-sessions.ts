/**
 * bench:engine's sessions through the simulator (bench/README.md): the server child
 * (simulator-server.ts), the tenant and plans seeded through the API, the simulator sockets and the
 * load of new sessions. Shared by bench/engine/simulator.ts and bench/budget.ts.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { presetIntervals } from '@voxplan/contracts';
import { simulatorProtocol, type SimulatorServerFrame } from '@voxplan/contracts/simulator';
import WebSocket from 'ws';
import { procCpuSeconds, procSchedTimes, type SchedTimes } from '../lib/proc-cpu.ts';
import { BENCH_ADMIN, type ServerCommand } from './simulator-protocol.ts';

const here = import.meta.dirname;
const ivr = JSON.parse(fs.readFileSync(path.resolve(here, '../../fixtures/plans/benchmark-ivr.json'), 'utf8')) as {
  settings: unknown;
  nodes: Array<{ id: string; type: string; data: Record<string, unknown> }>;
  edges: unknown[];
};


// ---------------------------------------------------------------------------------------------
// The server child

export interface Server {
  url: string;
  command<T>(command: ServerCommand): Promise<T>;
  /** The child's CPU so far, user + system, s (/proc: read without waking it); undefined where /proc is not. */
  cpuSeconds(): number | undefined;
  /** Its main thread's time on its core and waiting for it (/proc); undefined where /proc is not. */
  schedTimes(): SchedTimes | undefined;
  stop(): Promise<void>;
}

/** The server child on a fresh SQLite data dir; `pin`: on CPU 1 (the caller on CPU 0). */
export async function startServer(pin: boolean): Promise<Server> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'voxplan-bench-simulator-'));
  // BENCH_SERVER_NODE_FLAGS: V8 or Node flags for the server child, space-separated (bench/README.md).
  const flags = (process.env.BENCH_SERVER_NODE_FLAGS ?? '').split(' ').filter((flag) => flag !== '');
  const args = ['--expose-gc', ...flags, '--import', import.meta.resolve('tsx'), path.join(here, 'simulator-server.ts')];
  const child: ChildProcess = spawn(pin ? 'taskset' : process.execPath, pin ? ['-c', '1', process.execPath, ...args] : args, {
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
    cpuSeconds: () => procCpuSeconds(child.pid),
    schedTimes: () => procSchedTimes(child.pid),
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

export interface Seeded {
  token: string;
  tenantId: number;
  planId: number;
  /** start → voice menu and nothing else: the floor of the path, what the simulator and the session runtime cost alone. */
  menuPlanId: number;
}

/** A tenant with the IVR's destination and date range, the IVR itself (draft and published), and plan requests allowed to reach loopback. */
export async function seed(server: Server, crmUrl: string): Promise<Seeded> {
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
export class Panel {
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
export const lastTurn = (frames: SimulatorServerFrame[]) => frames.at(-1);

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

/** Simulator sockets on one plan, opened once; `run` drives new sessions on all of them for a while. */
export class SessionLoad {
  private constructor(
    private readonly server: Server,
    private readonly panels: Panel[],
  ) {}

  /** `connections` sockets on the plan; the IVR's are checked first (a voice and a chat call). */
  static async open(server: Server, seeded: Seeded, planId: number, connections: number): Promise<SessionLoad> {
    const panels = await Promise.all(Array.from({ length: connections }, () => Panel.open(server, seeded, planId)));
    if (planId === seeded.planId) {
      await checkCall(panels[0]!, 'voice');
      await checkCall(panels[0]!, 'chat');
    }
    return new SessionLoad(server, panels);
  }

  /** Each socket starts a voice session and hangs it up, again and again, for `seconds`. */
  async run(seconds: number) {
    const deadline = performance.now() + seconds * 1000;
    const startLatencies: number[] = [];
    let sessions = 0;
    const cpuBefore = await this.server.command<NodeJS.CpuUsage>({ cmd: 'cpu' });
    const benchCpuBefore = process.cpuUsage();
    const wallStart = performance.now();
    await Promise.all(
      this.panels.map(async (panel) => {
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
    const cpuAfter = await this.server.command<NodeJS.CpuUsage>({ cmd: 'cpu' });
    const serverCpuS = (cpuAfter.user - cpuBefore.user + cpuAfter.system - cpuBefore.system) / 1e6;
    const benchCpuS = (benchCpu.user + benchCpu.system) / 1e6;
    startLatencies.sort((a, b) => a - b);
    return { sessions, wallS, serverCpuS, benchCpuS, p50: percentile(startLatencies, 0.5), p95: percentile(startLatencies, 0.95) };
  }

  close(): Promise<unknown> {
    return Promise.all(this.panels.map((panel) => new Promise((resolve) => (panel.socket.once('close', resolve), panel.socket.close()))));
  }
}

/** How long the sessions run: `warmupSeconds` unmeasured first; `profileDir`: the server profiles the measured run into it. */
export interface LoadSettings {
  connections: number;
  warmupSeconds: number;
  seconds: number;
  profileDir?: string | undefined;
}

/** New sessions through the simulator: `connections` sockets each starting a voice session of the plan and hanging it up, again and again. */
export async function throughput(server: Server, seeded: Seeded, planId: number, name: string, settings: LoadSettings) {
  const load = await SessionLoad.open(server, seeded, planId, settings.connections);
  await load.run(settings.warmupSeconds);
  if (settings.profileDir) await server.command({ cmd: 'profileStart' });
  const result = await load.run(settings.seconds);
  if (settings.profileDir) {
    fs.mkdirSync(settings.profileDir, { recursive: true });
    const { file } = await server.command<{ file: string }>({ cmd: 'profileStop', file: path.resolve(settings.profileDir, `simulator-${name}.cpuprofile`) });
    console.log(`  (CPU profile of the server: ${file})`);
  }
  await load.close();
  return result;
}

/** The CRM the IVR's HTTP lookup calls: a stub on loopback. */
export async function startCrm(): Promise<{ url: string; close(): void }> {
  const crm = http.createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ customer: { name: 'Ana', tier: 'gold' } }));
  });
  await new Promise<void>((resolve) => crm.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(crm.address() as AddressInfo).port}`, close: () => crm.close() };
}

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
import { execFileSync } from 'node:child_process';
import os from 'node:os';
import { type RuntimeLoopResult, type ServerMemory } from './simulator-protocol.ts';
import { Panel, seed, type Seeded, type Server, startCrm, startServer, throughput as sessionsThroughput } from './simulator-sessions.ts';

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
const throughput = (server: Server, seeded: Seeded, planId: number, name: string) => sessionsThroughput(server, seeded, planId, name, settings);

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
  const crm = await startCrm();
  const crmUrl = crm.url;
  console.log(
    `engine end to end — node ${process.version}, ${os.cpus().length} x ${os.cpus()[0]?.model ?? 'CPU'}, SQLite` +
      (pinning ? ', bench on CPU 0, server on CPU 1' : ', no CPU pinning'),
  );

  // New sessions per second through the simulator.
  let server = await startServer(pinning);
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
  server = await startServer(pinning);
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

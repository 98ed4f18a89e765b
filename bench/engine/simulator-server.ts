/**
 * The server side of the simulator bench (bench/engine/simulator.ts), run as its child with an IPC
 * channel and `--expose-gc`: the real app on a fresh SQLite data dir (BENCH_DATA_DIR), listening on
 * loopback. It answers the parent's commands and exits when the parent goes away.
 */
import type { AddressInfo } from 'node:net';
import { buildApp } from '../../apps/server/src/app.ts';
import { startContext } from '../../apps/server/src/bootstrap.ts';
import { windowProfiler } from '../lib/profiler.ts';
import { settleServer } from '../lib/settle.ts';
import { benchServerConfig } from '../lib/server-config.ts';
import { newSessionId } from '../../apps/server/src/modules/sessions/sessions.service.ts';
import type { RuntimeLoopResult, ServerCommand, ServerMemory } from './simulator-protocol.ts';

const dataDir = process.env.BENCH_DATA_DIR;
if (!dataDir || !process.send) throw new Error('simulator-server.ts runs as a child of bench/engine/simulator.ts, with BENCH_DATA_DIR');
const collectGarbage = (globalThis as { gc?: () => void }).gc;
if (!collectGarbage) throw new Error('run with --expose-gc: resident memory is read after a full collection');

const config = await benchServerConfig(dataDir);
const started = await startContext(config);
await started.warm();
const app = await buildApp(started.ctx, { logger: false });
await app.listen({ port: 0, host: config.host });

/** Resident memory after full collections, so that garbage waiting to be collected is not counted. */
async function memory(): Promise<ServerMemory> {
  for (let i = 0; i < 3; i++) {
    collectGarbage!();
    await new Promise((resolve) => setImmediate(resolve));
  }
  const usage = process.memoryUsage();
  const waiting = await started.ctx.db
    .selectFrom('sessions')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('status', '=', 'waiting')
    .executeTakeFirstOrThrow();
  return { rss: usage.rss, heapUsed: usage.heapUsed, external: usage.external, waitingSessions: Number(waiting.count) };
}

/** The simulator's sessions without the simulator: what the session runtime and the database cost alone. */
async function runtimeLoop(command: Extract<ServerCommand, { cmd: 'runtimeLoop' }>): Promise<RuntimeLoopResult> {
  const { sessions } = started.ctx;
  const cpuBefore = process.cpuUsage();
  const wallStart = performance.now();
  const deadline = wallStart + command.seconds * 1000;
  let count = 0;
  await Promise.all(
    Array.from({ length: command.concurrency }, async () => {
      while (performance.now() < deadline) {
        const id = newSessionId();
        const first = await sessions.start({
          id,
          tenant_id: command.tenantId,
          plan_id: command.planId,
          channel: 'voice',
          provider: 'simulator',
          direction: 'inbound',
          caller: 'bench',
          called: 'ivr',
          draft: true,
          is_test: true,
        });
        const end = await sessions.handleTurn(id, 'hangup', { type: 'hangup' }, { tenantId: command.tenantId });
        if (first.status !== 'waiting' || end.status !== 'ended') throw new Error(`a session went ${first.status}, then ${end.status}`);
        count++;
      }
    }),
  );
  const cpu = process.cpuUsage(cpuBefore);
  return { sessions: count, wallS: (performance.now() - wallStart) / 1000, cpuS: (cpu.user + cpu.system) / 1e6 };
}

const profiler = windowProfiler();

async function run(command: ServerCommand): Promise<unknown> {
  switch (command.cmd) {
    case 'profileStart':
      return profiler.start();
    case 'profileStop':
      return profiler.stop(command.file);
    case 'memory':
      return memory();
    case 'cpu':
      return process.cpuUsage();
    case 'settle':
      await settleServer(started.ctx, collectGarbage!);
      return null;
    case 'runtimeLoop':
      return runtimeLoop(command);
    case 'startChats': {
      // Chats as a channel starts them (a web chat, WhatsApp): no socket stays open for them.
      for (let i = 0; i < command.count; i++) {
        const outcome = await started.ctx.sessions.start({
          tenant_id: command.tenantId,
          plan_id: command.planId,
          channel: 'chat',
          provider: 'webchat',
          caller: `visitor-${command.offset + i}`,
          called: 'site',
        });
        if (outcome.status !== 'waiting') throw new Error(`chat ${i} did not wait for the visitor: ${outcome.status}`);
      }
      return null;
    }
  }
}

let closing = false;
async function shutdown(): Promise<void> {
  if (closing) return;
  closing = true;
  await app.close();
  await started.close();
  process.exit(0);
}
process.on('disconnect', () => void shutdown());
process.on('message', (message: { id: number } & ServerCommand) => {
  run(message).then(
    (result) => process.send!({ id: message.id, ok: true, result }),
    (error: unknown) => process.send!({ id: message.id, ok: false, error: error instanceof Error ? error.message : String(error) }),
  );
});
process.send({ ready: true, port: (app.server.address() as AddressInfo).port });

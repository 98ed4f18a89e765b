/**
 * A second server instance for the session tests: its own process, its own connection to the
 * test's database, its own Lua runner, driven over IPC by sessions-helpers.ts (startInstance).
 * A separate process, not a second context in the test's process: SQLite's lock waits block the
 * thread, as they would block another server's, not the test's.
 */
import { LuaScriptRunner } from '@voxplan/engine/lua';
import { startContext } from '../src/bootstrap.ts';
import type { Config } from '../src/config.ts';
import { createSessionRuntime } from '../src/modules/sessions/sessions.service.ts';

const config = JSON.parse(process.env.INSTANCE_CONFIG ?? '{}') as Config;
let now = new Date(process.env.INSTANCE_CLOCK ?? Date.now());
const started = await startContext(config);
const scripts = new LuaScriptRunner({ workers: 1 });
const runtime = createSessionRuntime(started.ctx, { scripts, clock: { now: () => now } });

type Message = { id: number; op: string; args: unknown[] };

const operations: Record<string, (...args: never[]) => Promise<unknown>> = {
  ready: async () => true,
  start: (request: Parameters<typeof runtime.start>[0]) => runtime.start(request),
  handleTurn: (sessionId: string, eventId: string, event: Parameters<typeof runtime.handleTurn>[2]) => runtime.handleTurn(sessionId, eventId, event),
  sweepTimeouts: () => runtime.sweepTimeouts(),
  expireStale: (inactiveSince: string) => runtime.expireStale(inactiveSince),
  setClock: async (iso: string) => {
    now = new Date(iso);
  },
  close: async () => {
    await scripts.close();
    await started.close();
    setImmediate(() => process.exit(0));
  },
};

process.on('message', (message: Message) => {
  const operation = operations[message.op];
  if (!operation) {
    process.send?.({ id: message.id, error: `unknown operation ${message.op}` });
    return;
  }
  (operation as (...args: unknown[]) => Promise<unknown>)(...message.args).then(
    (result) => process.send?.({ id: message.id, result: result ?? null }),
    (error: unknown) => process.send?.({ id: message.id, error: error instanceof Error ? `${error.name}: ${error.message}` : String(error) }),
  );
});

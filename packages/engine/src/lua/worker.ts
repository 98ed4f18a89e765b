/**
 * A worker thread running `fx` scripts one at a time for the runner (index.ts). Lua runs
 * synchronously; here that blocks only this thread, never the server's event loop, and the runner
 * can terminate the thread if a script is stuck where Lua cannot interrupt it.
 */
import { parentPort } from 'node:worker_threads';
import { LuaWasm } from 'wasmoon';
import type { RunMessage, WorkerMessage } from './protocol.ts';
import { createSandbox } from './sandbox.ts';
import type { LuaModule } from './lua-api.ts';

const port = parentPort;
if (!port) throw new Error('lua/worker.ts runs as a worker thread');

const lua = await LuaWasm.initialize();
// wasmoon types its module as Emscripten's generic one, without the raw exports called here.
const sandbox = createSandbox(lua.module as unknown as LuaModule);

const send = (message: WorkerMessage) => port.postMessage(message);

port.on('message', ({ id, script, varsJson }: RunMessage) => {
  try {
    send({ type: 'result', id, result: sandbox.run(script, varsJson) });
  } catch (error) {
    // Anything thrown here left the wasm module in an unknown state: answer, then let the
    // runner start a fresh worker.
    const message = error instanceof Error ? error.message : String(error);
    send({ type: 'result', id, result: { ok: false, reason: 'error', message: `the Lua engine failed: ${message}` } });
    process.exit(1);
  }
});

send({ type: 'ready' });

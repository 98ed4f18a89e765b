/**
 * The `ScriptRunner` port on real Lua 5.4 (docs/engine-lua.md). Scripts run in a small pool of
 * worker threads, each running one script at a time in a fresh Lua state (sandbox.ts), so a
 * runaway script costs one worker its budget and never blocks the server's event loop.
 *
 * Inside a worker the CPU and memory limits stop a script in an orderly way. A watchdog here covers
 * what Lua cannot interrupt: a single library call that runs for long, such as a pattern match
 * that backtracks for minutes. It terminates that worker, and the next run starts a fresh one.
 */
import { Worker } from 'node:worker_threads';
import type { ScriptRequest, ScriptResult, ScriptRunner } from '../ports.ts';
import { workerSource } from './bundle.ts';
import { MAX_SCRIPT_BYTES, MEMORY_LIMIT_BYTES } from './limits.ts';
import type { RunMessage, WorkerMessage } from './protocol.ts';

export { CPU_LIMIT_MS, MEMORY_LIMIT_BYTES } from './limits.ts';
export { LUA_WORKER_FILE, WASMOON_PLACEHOLDER } from './bundle.ts';

export interface LuaScriptRunnerOptions {
  /** Worker threads, hence scripts running side by side. Default 2. */
  workers?: number;
  /**
   * Wall-clock milliseconds after which a worker that has not answered is terminated and its run
   * reported as `cpu_limit`. Default 1000: far above the 100 ms budget, so it only catches calls
   * Lua cannot interrupt, and a busy machine does not trip it.
   */
  watchdogMs?: number;
}

type Failure = Extract<ScriptResult, { ok: false }>;
const failure = (reason: Failure['reason'], message: string): Failure => ({ ok: false, reason, message });

interface Job {
  id: number;
  script: string;
  varsJson: string;
  resolve(result: ScriptResult): void;
}

interface Slot {
  /** Absent while the worker's code is being bundled. */
  worker?: Worker;
  ready: boolean;
  /** Settles once the worker is ready or gone. */
  readyPromise: Promise<void>;
  settleReady(): void;
  job?: Job;
  watchdog?: NodeJS.Timeout;
}

/** What a worker's V8 heap may grow to (Lua's own memory is counted and capped separately). */
const WORKER_HEAP_MB = 128;

/** The session variables cross as JSON text, which also makes the script's `vars` a copy. */
function varsToJson(vars: ScriptRequest['vars']): string {
  const json = JSON.stringify(vars);
  if (json === undefined || !json.startsWith('{')) throw new Error('they must be an object');
  return json;
}

export class LuaScriptRunner implements ScriptRunner {
  readonly #size: number;
  readonly #watchdogMs: number;
  readonly #slots = new Set<Slot>();
  readonly #queue: Job[] = [];
  #nextId = 1;
  #closed = false;

  constructor(options: LuaScriptRunnerOptions = {}) {
    this.#size = Math.max(1, options.workers ?? 2);
    this.#watchdogMs = options.watchdogMs ?? 1000;
  }

  run(request: ScriptRequest): Promise<ScriptResult> {
    if (this.#closed) return Promise.resolve(failure('error', 'the Lua runner is closed'));
    if (typeof request.script !== 'string') return Promise.resolve(failure('error', 'the script must be text'));
    if (Buffer.byteLength(request.script) > MAX_SCRIPT_BYTES) return Promise.resolve(failure('error', `the script is longer than ${MAX_SCRIPT_BYTES / 1024} KiB`));
    let varsJson: string;
    try {
      varsJson = varsToJson(request.vars);
    } catch (error) {
      return Promise.resolve(failure('error', `the session variables cannot be given to Lua: ${(error as Error).message}`));
    }
    // They could not fit in the state anyway, and would first be copied into wasm memory.
    if (varsJson.length > MEMORY_LIMIT_BYTES) return Promise.resolve(failure('memory_limit', 'the session variables are larger than the memory limit'));
    return new Promise((resolve) => {
      this.#queue.push({ id: this.#nextId++, script: request.script, varsJson, resolve });
      this.#pump();
    });
  }

  /** Starts every worker now (the first run would otherwise wait for one to load). */
  async warm(): Promise<void> {
    while (!this.#closed && this.#slots.size < this.#size) this.#spawn();
    await Promise.all([...this.#slots].map((slot) => slot.readyPromise));
  }

  /** Stops the workers; runs still queued or running end as `error`. */
  async close(): Promise<void> {
    this.#closed = true;
    for (const job of this.#queue.splice(0)) job.resolve(failure('error', 'the Lua runner is closed'));
    const slots = [...this.#slots];
    this.#slots.clear();
    for (const slot of slots) {
      slot.settleReady();
      this.#finish(slot, failure('error', 'the Lua runner is closed'));
    }
    await Promise.all(slots.map((slot) => slot.worker?.terminate()));
  }

  #pump(): void {
    while (this.#queue.length > 0) {
      const idle = [...this.#slots].find((slot) => slot.ready && !slot.job);
      if (idle) {
        this.#dispatch(idle, this.#queue.shift()!);
        continue;
      }
      const starting = [...this.#slots].filter((slot) => !slot.ready).length;
      if (this.#slots.size >= this.#size || starting >= this.#queue.length) return;
      this.#spawn();
    }
  }

  #spawn(): void {
    let settleReady = () => {};
    const readyPromise = new Promise<void>((resolve) => (settleReady = resolve));
    const slot: Slot = { ready: false, readyPromise, settleReady };
    this.#slots.add(slot);
    workerSource().then(
      (source) => {
        if (this.#slots.has(slot)) this.#start(slot, source);
      },
      (error: Error) => this.#failedToStart(slot, error),
    );
  }

  #start(slot: Slot, source: string): void {
    const worker = new Worker(new URL(`data:text/javascript,${encodeURIComponent(source)}`), {
      resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB },
    });
    slot.worker = worker;
    worker.on('message', (message: WorkerMessage) => {
      if (message.type === 'ready') {
        slot.ready = true;
        slot.settleReady();
        worker.unref();
      } else if (slot.job?.id === message.id) {
        this.#finish(slot, message.result);
      }
      this.#pump();
    });
    worker.on('error', (error: Error & { code?: string }) => {
      if (!slot.ready) {
        this.#failedToStart(slot, error);
        return;
      }
      this.#retire(slot);
      this.#finish(
        slot,
        error.code === 'ERR_WORKER_OUT_OF_MEMORY'
          ? failure('memory_limit', 'the script’s results exhausted the worker’s memory')
          : failure('error', `the Lua worker failed: ${error.message}`),
      );
      this.#pump();
    });
    worker.on('exit', () => {
      this.#retire(slot);
      this.#finish(slot, failure('error', 'the Lua worker stopped'));
      this.#pump();
    });
  }

  /**
   * A worker that cannot even start would fail the same way for every queued run: those fail now,
   * instead of the pool starting worker after worker. The next run tries again.
   */
  #failedToStart(slot: Slot, error: Error): void {
    this.#retire(slot);
    for (const job of this.#queue.splice(0)) job.resolve(failure('error', `the Lua worker could not start: ${error.message}`));
  }

  #dispatch(slot: Slot, job: Job): void {
    const worker = slot.worker!;
    slot.job = job;
    worker.ref();
    slot.watchdog = setTimeout(() => {
      this.#retire(slot);
      this.#finish(slot, failure('cpu_limit', `the script was stopped after ${this.#watchdogMs} ms inside a call Lua could not interrupt`));
      void worker.terminate();
      this.#pump();
    }, this.#watchdogMs);
    const message: RunMessage = { id: job.id, script: job.script, varsJson: job.varsJson };
    worker.postMessage(message);
  }

  #finish(slot: Slot, result: ScriptResult): void {
    clearTimeout(slot.watchdog);
    const job = slot.job;
    slot.job = undefined;
    job?.resolve(result);
    if (this.#slots.has(slot)) slot.worker?.unref();
  }

  /** Takes a worker out of the pool; it is never given another run. */
  #retire(slot: Slot): void {
    this.#slots.delete(slot);
    slot.settleReady();
  }
}

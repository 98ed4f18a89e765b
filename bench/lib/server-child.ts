/**
 * A bench's server in a child process, spoken to over IPC (bench/api/protocol.ts: a `ready`
 * message when it listens, then commands and their replies), optionally pinned to one CPU so that
 * the load generator, in the parent, does not share the server's core.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import { unlimitedTestLicenseEnv } from '../../apps/server/src/modules/license/test-license.ts';
import { type CpuSplit, procCpuSeconds, procCpuSplit, procSchedTimes, type SchedTimes } from './proc-cpu.ts';
import { type ChildMessage, type Command, isChildMessage, type ReadyMessage, type ReplyMessage, type ServerKind } from '../api/protocol.ts';

function hasTaskset(): boolean {
  try {
    execFileSync('taskset', ['-p', String(process.pid)], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

export const cpuCount = os.availableParallelism();
/** The load generator's core and the server's, when pinning. */
export const LOADGEN_CPU = 0;
export const SERVER_CPU = 1;

/** Whether processes can be pinned to a core each: two cores or more and taskset. */
export const canPin = (): boolean => cpuCount >= 2 && hasTaskset();

/** Pins this process, all its threads, to these CPUs (all of them: no pinning). */
export function pinSelf(cpus: number[] | 'all'): void {
  const list = cpus === 'all' ? `0-${cpuCount - 1}` : cpus.join(',');
  execFileSync('taskset', ['-a', '-p', '-c', list, String(process.pid)], { stdio: 'ignore' });
}

export const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export class ServerChild {
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (reply: ReplyMessage) => void; reject: (error: Error) => void }>();
  private exited = false;
  readonly exit: Promise<number | null>;

  private constructor(
    readonly kind: ServerKind,
    readonly process: ChildProcess,
    readonly ready: ReadyMessage,
  ) {
    this.exit = new Promise((resolve) => {
      if (process.exitCode !== null) resolve(process.exitCode);
      process.once('exit', (code) => resolve(code));
    });
    process.on('exit', () => {
      this.exited = true;
      for (const { reject } of this.pending.values()) reject(new Error(`${kind} server exited`));
      this.pending.clear();
    });
    process.on('message', (message: unknown) => {
      if (!isChildMessage(message) || message.type !== 'reply') return;
      const waiter = this.pending.get(message.id);
      this.pending.delete(message.id);
      waiter?.resolve(message);
    });
  }

  /** Runs `script kind` under tsx, on core `cpu` when given, and waits for its `ready` message. */
  static async start(script: string, kind: ServerKind, env: NodeJS.ProcessEnv, cpu?: number): Promise<ServerChild> {
    let tsxImport: string;
    try {
      tsxImport = import.meta.resolve('tsx');
    } catch {
      tsxImport = 'tsx';
    }
    const nodeArgs = ['--import', tsxImport, script, kind];
    // Made here, before the child starts, so that every child inherits one trusted test key (test-license.ts).
    await unlimitedTestLicenseEnv();
    const child =
      cpu === undefined
        ? spawn(process.execPath, nodeArgs, { env: { ...process.env, ...env }, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })
        : spawn('taskset', ['-c', String(cpu), process.execPath, ...nodeArgs], { env: { ...process.env, ...env }, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    const ready = await new Promise<ReadyMessage>((resolve, reject) => {
      const onMessage = (message: unknown) => {
        if (isChildMessage(message) && message.type === 'ready') {
          cleanup();
          resolve(message);
        }
      };
      const onExit = (code: number | null) => {
        cleanup();
        reject(new Error(`${kind} server exited with code ${code} before it was ready`));
      };
      const cleanup = () => {
        child.off('message', onMessage);
        child.off('exit', onExit);
      };
      child.on('message', onMessage);
      child.on('exit', onExit);
    });
    return new ServerChild(kind, child, ready);
  }

  get url(): string {
    return `http://127.0.0.1:${this.ready.port}`;
  }

  async command(command: Command): Promise<ReplyMessage['result']> {
    if (this.exited) throw new Error(`${this.kind} server is gone`);
    const id = this.nextId++;
    const reply = await new Promise<ReplyMessage>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      const message: ChildMessage | (Command & { type: 'command'; id: number }) = { ...command, type: 'command', id };
      this.process.send(message);
    });
    if (!reply.ok) throw new Error(`${this.kind} server: ${command.cmd} failed: ${reply.error ?? 'unknown error'}`);
    return reply.result;
  }

  /**
   * Holds the child to `share` of one core (Linux cgroups, v2 or v1's cpu controller; root only):
   * an instance with a CPU budget of its own, as on a machine of its own, on a machine too small to
   * give each instance one. Answers false when the caps cannot be set here. The group goes with
   * `stop`.
   */
  capCpu(share: number): boolean {
    const quota = Math.round(share * 100_000);
    const kinds = [
      // cgroup v2, with the cpu controller given to children.
      { dir: '/sys/fs/cgroup', usable: () => fs.readFileSync('/sys/fs/cgroup/cgroup.controllers', 'utf8').split(/\s+/).includes('cpu'), limits: { 'cpu.max': `${quota} 100000` } },
      // cgroup v1's cpu hierarchy.
      { dir: '/sys/fs/cgroup/cpu', usable: () => fs.existsSync('/sys/fs/cgroup/cpu/cpu.cfs_quota_us'), limits: { 'cpu.cfs_period_us': '100000', 'cpu.cfs_quota_us': String(quota) } },
    ];
    for (const kind of kinds) {
      try {
        if (!kind.usable()) continue;
        const group = `${kind.dir}/voxplan-bench-${this.process.pid}`;
        fs.mkdirSync(group, { recursive: true });
        for (const [file, value] of Object.entries(kind.limits)) fs.writeFileSync(`${group}/${file}`, value);
        fs.writeFileSync(`${group}/cgroup.procs`, String(this.process.pid));
        this.cpuGroup = group;
        return true;
      } catch {
        // Not this kind of cgroup here, or not allowed: the next.
      }
    }
    return false;
  }

  private cpuGroup: string | undefined;

  /** CPU seconds the child has used so far (Linux /proc), or undefined elsewhere. */
  cpuSeconds(): number | undefined {
    return procCpuSeconds(this.process.pid);
  }
  /** Its main thread's time on the CPU and waiting for it, so far (Linux /proc), or undefined elsewhere. */
  schedTimes(): SchedTimes | undefined {
    return procSchedTimes(this.process.pid);
  }
  /** Its CPU so far by thread and kind (BENCH_CPU_SPLIT=1 prints it a figure). */
  cpuSplit(): CpuSplit | undefined {
    return procCpuSplit(this.process.pid);
  }

  async stop(): Promise<void> {
    if (this.exited) return;
    try {
      if (this.process.connected) await Promise.race([this.command({ cmd: 'shutdown' }), delay(2000)]);
    } catch {
      // fall through to the timeout below
    }
    const exited = await Promise.race([this.exit.then(() => true), delay(5000).then(() => false)]);
    if (!exited && !this.exited) {
      this.process.kill('SIGKILL');
      await this.exit;
    }
    // An empty group is removed with rmdir (its files are the kernel's).
    if (this.cpuGroup) fs.rmdirSync(this.cpuGroup);
  }
}

/** The server children of one bench run, so that an error or Ctrl-C stops whichever are still running. */
export class ServerChildren {
  private readonly running = new Set<ServerChild>();
  private readonly undo: Array<() => unknown> = [];

  constructor(private readonly script: string) {}

  async start(kind: ServerKind, env: NodeJS.ProcessEnv, cpu: number | undefined): Promise<ServerChild> {
    const child = await ServerChild.start(this.script, kind, env, cpu);
    this.running.add(child);
    return child;
  }

  async stop(child: ServerChild): Promise<void> {
    await child.stop();
    this.running.delete(child);
  }

  /** Something else stopAll undoes, after the children and in reverse order: a database server, a temp dir. */
  onStopAll(undo: () => unknown): void {
    this.undo.push(undo);
  }

  async stopAll(): Promise<void> {
    await Promise.all([...this.running].map((child) => child.stop().catch(() => undefined)));
    this.running.clear();
    for (const undo of this.undo.splice(0).reverse()) {
      try {
        await undo();
      } catch {
        // the others still run
      }
    }
  }
}

/** Messages between bench/engine/simulator.ts and its server child (simulator-server.ts). */

export { BENCH_ADMIN } from '../lib/server-config.ts';

export type ServerCommand =
  | { cmd: 'memory' }
  | { cmd: 'cpu' }
  /** Checkpoints the WAL and collects the garbage: what a seed left is done before the measured rounds. */
  | { cmd: 'settle' }
  /** Starts `count` chats of the plan through the session runtime, one after the other. */
  | { cmd: 'startChats'; tenantId: number; planId: number; count: number; offset: number }
  /**
   * Runs the simulator's sessions (voice, the draft: start, then hang-up) through the session
   * runtime in the server's own process, `concurrency` at a time for `seconds`: the same work
   * without the WebSocket and its frames.
   */
  | { cmd: 'runtimeLoop'; tenantId: number; planId: number; seconds: number; concurrency: number }
  /** CPU-profiles the server over a measured window (BENCH_PROFILE_DIR). */
  | { cmd: 'profileStart' }
  | { cmd: 'profileStop'; file: string };

export interface RuntimeLoopResult {
  sessions: number;
  wallS: number;
  /** The server process's CPU over the loop, user and system, in seconds. */
  cpuS: number;
}

export interface ServerMemory {
  rss: number;
  heapUsed: number;
  external: number;
  /** Sessions stored as waiting: the live ones. */
  waitingSessions: number;
}

/** Messages between bench/engine/simulator.ts and its server child (simulator-server.ts). */

export { BENCH_ADMIN } from '../lib/server-config.ts';

export type ServerCommand =
  | { cmd: 'memory' }
  | { cmd: 'cpu' }
  /** Starts `count` chats of the plan through the session runtime, one after the other. */
  | { cmd: 'startChats'; tenantId: number; planId: number; count: number; offset: number }
  /** CPU-profiles the server over a measured window (BENCH_PROFILE_DIR). */
  | { cmd: 'profileStart' }
  | { cmd: 'profileStop'; file: string };

export interface ServerMemory {
  rss: number;
  heapUsed: number;
  external: number;
  /** Sessions stored as waiting: the live ones. */
  waitingSessions: number;
}

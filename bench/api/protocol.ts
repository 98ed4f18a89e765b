/** Messages between bench/api/run.ts (the load generator) and bench/api/server.ts (the server child). */

export { BENCH_ADMIN } from '../lib/server-config.ts';

/**
 * `channels`: the real app, unseeded, as bench/channels/run.ts needs it (PUBLIC_URL, a MASTER_KEY
 * shared by its instances). `floor`, `twilio-floor`, `agi-floor` and `conversations-floor`: the least a server on this stack does for
 * the same requests (floor.ts).
 */
export const serverKinds = ['hello', 'voxplan', 'channels', 'floor', 'twilio-floor', 'twilio-stored-floor', 'agi-floor', 'conversations-floor'] as const;
export type ServerKind = (typeof serverKinds)[number];

/** Sent once by the child when it listens. */
export interface ReadyMessage {
  type: 'ready';
  kind: ServerKind;
  port: number;
  /** voxplan only: the database, the seeded tenant, its destinations' ids and how long seeding took. */
  dialect?: 'sqlite' | 'postgres';
  tenantId?: number;
  firstId?: number;
  lastId?: number;
  seededRows?: number;
  seedMs?: number;
  /** channels with BENCH_AGI=1, and agi-floor: the FastAGI listener's port. */
  agiPort?: number;
}

export type Command =
  | { cmd: 'createIndex'; name: string; table: string; columns: string[] }
  | { cmd: 'dropIndex'; name: string }
  | { cmd: 'explain'; label: string; filter?: unknown; where?: unknown; tenantId: number }
  | { cmd: 'profileStart' }
  | { cmd: 'profileStop'; file: string }
  | { cmd: 'memory' }
  /** The garbage collector's work since the child started (`GcResult`). */
  | { cmd: 'gc' }
  /** After the seed, before the warm-up: a full collection, and the SQLite database's WAL checkpointed and truncated. */
  | { cmd: 'settle' }
  /** PostgreSQL: the statements the server has sent so far (each a round trip), for a call's count; null on SQLite. */
  | { cmd: 'statements'; /** With BENCH_STATEMENTS=1: print each statement's text from this count to the next that says so. */ log?: boolean }
  | { cmd: 'shutdown' };

export type CommandMessage = Command & { type: 'command'; id: number };

export interface ExplainResult {
  sql: string;
  plan: string[];
  /** Median time of running the query directly through ctx.db (no HTTP), in ms. */
  medianMs: number;
  rows: number;
}

/** `memory`: the child's process.memoryUsage() in bytes, after a full garbage collection when it runs with --expose-gc. */
export interface MemoryResult {
  heapUsed: number;
  rss: number;
  external: number;
  collected: boolean;
}

/** `gc`: collections since the child started, by kind, and their pause on the main thread, ms. */
export interface GcResult {
  minor: number;
  major: number;
  minorMs: number;
  majorMs: number;
}

export interface ReplyMessage {
  type: 'reply';
  id: number;
  ok: boolean;
  error?: string;
  result?: ExplainResult | { file: string } | MemoryResult | GcResult | number | null;
}

export type ChildMessage = ReadyMessage | ReplyMessage;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

export function isChildMessage(value: unknown): value is ChildMessage {
  return isRecord(value) && (value.type === 'ready' || value.type === 'reply');
}

export function isCommandMessage(value: unknown): value is CommandMessage {
  return isRecord(value) && value.type === 'command' && typeof value.id === 'number' && typeof value.cmd === 'string';
}

export function isMemoryResult(value: unknown): value is MemoryResult {
  return isRecord(value) && typeof value.heapUsed === 'number' && typeof value.rss === 'number' && typeof value.collected === 'boolean';
}

export function isExplainResult(value: unknown): value is ExplainResult {
  return isRecord(value) && typeof value.sql === 'string' && Array.isArray(value.plan) && typeof value.medianMs === 'number';
}

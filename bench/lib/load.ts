/**
 * Load through autocannon against bench server children, and the figures every bench prints from
 * it: requests a second, latency percentiles, the servers' CPU (/proc) per request, the load
 * generator's CPU and the machine's load average.
 */
import os from 'node:os';
import autocannon from 'autocannon';
import type { ServerChild } from './server-child.ts';
import type { CpuSplit } from './proc-cpu.ts';

export const percentile = (sorted: Float64Array, p: number): number =>
  sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? Number.NaN;

/** The middle value of a run's repeated figures (the upper middle of an even count): one noisy round does not move it. */
export const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

export const fmt = (value: number, digits = 2): string =>
  Number.isFinite(value) ? value.toLocaleString('en', { maximumFractionDigits: digits, minimumFractionDigits: digits }) : 'n/a';
export const pct = (share: number): string => `${Math.round(share * 100)}%`;

/** Rows of cells as aligned columns: the first left-aligned, the others right-aligned. */
export function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  return rows.map((row) => row.map((cell, column) => (column === 0 ? cell.padEnd(widths[column]!) : cell.padStart(widths[column]!))).join('  ')).join('\n');
}

export const failedOf = (result: autocannon.Result): number => result.non2xx + result.errors + result.timeouts;

/** What a load sends: a plain GET / (hello-world), or autocannon's request sequence each connection repeats. */
export type LoadShape = { requests?: autocannon.Request[] };

export function runLoad(server: ServerChild, shape: LoadShape, connections: number, seconds: number, onResponse?: (ms: number) => void): Promise<autocannon.Result> {
  return new Promise((resolve, reject) => {
    const instance = autocannon(
      { url: server.url, ...(shape.requests ? { requests: shape.requests } : { method: 'GET' as const }), connections, duration: seconds, pipelining: 1, timeout: 10 },
      (error: unknown, result: autocannon.Result) => (error ? reject(error instanceof Error ? error : new Error(String(error))) : resolve(result)),
    );
    if (onResponse) instance.on('response', (_client, _status, _bytes, ms) => onResponse(ms));
  });
}

export interface LoadFigures {
  name: string;
  /** Requests a second, all servers together. */
  rps: number;
  requests: number;
  duration: number;
  p50: number;
  p99: number;
  failed: number;
  /** Share of one core each server used, and the load generator. */
  serverCpu: number[];
  loadgenCpu: number;
  /** Server CPU (all servers) per request, in ms. */
  cpuMsPerRequest: number;
  /** The machine's 1-minute load average when the run ended: other work on the VM shows here. */
  load: number;
  /** What `options.count` grew by over the measured run (all servers), when given. */
  counted?: number;
}

/**
 * Warm-up, then the measured run, the connections shared out over the servers. `failures` gets a
 * line for any failed request, warm-up included: figures with failures mean nothing.
 */
export async function measureLoad(
  name: string,
  servers: ServerChild[],
  shape: LoadShape,
  options: { connections: number; seconds: number; warmupSeconds: number; failures: string[]; count?: (server: ServerChild) => Promise<number | null> },
): Promise<LoadFigures> {
  process.stderr.write(`  ${name}: warm-up ${options.warmupSeconds}s, measure ${options.seconds}s\n`);
  const perServer = Math.max(1, Math.floor(options.connections / servers.length));
  if (options.warmupSeconds > 0) {
    const warm = await Promise.all(servers.map((server) => runLoad(server, shape, perServer, options.warmupSeconds)));
    const failed = warm.reduce((sum, result) => sum + failedOf(result), 0);
    if (failed > 0) options.failures.push(`${name}: ${failed} failed requests in the warm-up`);
  }
  const latencies: number[] = [];
  const counts = async () => (options.count ? (await Promise.all(servers.map(options.count))).reduce<number>((sum, value) => sum + (value ?? Number.NaN), 0) : Number.NaN);
  const countedBefore = await counts();
  const splitBefore = process.env.BENCH_CPU_SPLIT === '1' ? servers.map((server) => server.cpuSplit()) : [];
  const cpuBefore = servers.map((server) => server.cpuSeconds() ?? Number.NaN);
  const loadgenBefore = process.cpuUsage();
  const results = await Promise.all(servers.map((server) => runLoad(server, shape, perServer, options.seconds, (ms) => latencies.push(ms))));
  const loadgen = process.cpuUsage(loadgenBefore);
  splitBefore.forEach((before, index) => {
    // Where a server's CPU went: its main thread's user and system time, and its other threads' (V8's and libuv's).
    const after = servers[index]!.cpuSplit();
    const served = results[index]!.requests.total;
    if (!before || !after || served === 0) return;
    const µs = (key: keyof CpuSplit) => Math.round(((after[key] - before[key]) / served) * 1e6);
    process.stderr.write(`    CPU a request, µs: main thread user ${µs('mainUser')}, system ${µs('mainSystem')}; other threads user ${µs('otherUser')}, system ${µs('otherSystem')}\n`);
  });
  const cpu = servers.map((server, index) => (server.cpuSeconds() ?? Number.NaN) - cpuBefore[index]!);
  const counted = (await counts()) - countedBefore;
  const duration = Math.max(...results.map((result) => result.duration));
  const requests = results.reduce((sum, result) => sum + result.requests.total, 0);
  const sorted = Float64Array.from(latencies).sort();
  const failed = results.reduce((sum, result) => sum + failedOf(result), 0);
  if (failed > 0) options.failures.push(`${name}: ${failed} failed requests`);
  return {
    name,
    rps: requests / duration,
    requests,
    duration,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    failed,
    serverCpu: cpu.map((seconds) => seconds / duration),
    loadgenCpu: (loadgen.user + loadgen.system) / 1e6 / duration,
    cpuMsPerRequest: (cpu.reduce((sum, seconds) => sum + seconds, 0) / requests) * 1000,
    load: os.loadavg()[0]!,
    ...(Number.isFinite(counted) && { counted }),
  };
}

/**
 * bench:api's load (bench/README.md): autocannon against a server child, with exact latency
 * percentiles from every response time and the server's CPU from /proc. Shared by bench/api/run.ts
 * and bench/budget.ts.
 */
import autocannon from 'autocannon';
import type { ServerChild } from '../lib/server-child.ts';

export interface Measurement {
  name: string;
  rps: number;
  /** Standard deviation of the per-second request counts, as a share of their mean. */
  rpsCv: number;
  p50: number;
  p95: number;
  p99: number;
  /** autocannon's own p97.5, from its whole-millisecond histogram, as a cross-check. */
  acP97_5: number;
  requests: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  statusCodes: Record<string, number>;
  serverCpu: number | undefined;
  loadgenCpu: number;
}

export function percentile(sortedValues: Float64Array, p: number): number {
  if (sortedValues.length === 0) return Number.NaN;
  const rank = Math.ceil((p / 100) * sortedValues.length) - 1;
  return sortedValues[Math.min(sortedValues.length - 1, Math.max(0, rank))]!;
}

/** What a scenario sends: one fixed request, or with `next` a new path (and body) for every request. */
export interface RequestSpec {
  method: 'GET' | 'POST' | 'PATCH';
  path: string;
  headers: Record<string, string>;
  next?: () => { path: string; body?: string };
}

export function runAutocannon(
  baseUrl: string,
  spec: RequestSpec,
  seconds: number,
  connections: number,
  onResponse?: (statusCode: number, responseTime: number) => void,
): Promise<autocannon.Result> {
  const { next } = spec;
  // autocannon builds the bytes of a request with setupRequest anew each time; a fixed one once.
  const requests: autocannon.Request[] | undefined = next && [{ method: spec.method, setupRequest: (request) => ({ ...request, ...next() }) }];
  return new Promise((resolve, reject) => {
    const instance = autocannon(
      {
        url: `${baseUrl}${spec.path}`,
        method: spec.method,
        headers: spec.headers,
        ...(requests && { requests }),
        connections,
        duration: seconds,
        pipelining: 1,
        timeout: 10,
      },
      (error: unknown, result: autocannon.Result) => (error ? reject(error instanceof Error ? error : new Error(String(error))) : resolve(result)),
    );
    if (onResponse) instance.on('response', (_client, statusCode, _bytes, responseTime) => onResponse(statusCode, responseTime));
  });
}

export function statusCodesOf(result: autocannon.Result): Record<string, number> {
  const codes: Record<string, number> = {};
  for (const [code, stat] of Object.entries(result.statusCodeStats ?? {})) codes[code] = stat.count ?? 0;
  return codes;
}

/** How long and how hard a scenario is driven; `failures` gets a line for any non-2xx answer or socket error. */
export interface MeasureOptions {
  seconds: number;
  warmupSeconds: number;
  connections: number;
  failures: string[];
}

export async function measure(name: string, server: ServerChild, spec: RequestSpec, options: MeasureOptions): Promise<Measurement> {
  const { seconds, warmupSeconds, connections, failures } = options;
  process.stderr.write(`  ${name}: warm-up ${warmupSeconds}s, measure ${seconds}s ...`);
  if (warmupSeconds > 0) {
    const warm = await runAutocannon(server.url, spec, warmupSeconds, connections);
    if (warm.non2xx > 0 || warm.errors > 0) {
      failures.push(`${name}: warm-up got ${warm.non2xx} non-2xx and ${warm.errors} errors ${JSON.stringify(statusCodesOf(warm))}`);
    }
  }
  const latencies: number[] = [];
  const serverCpuBefore = server.cpuSeconds();
  const loadgenBefore = process.cpuUsage();
  const wallBefore = process.hrtime.bigint();
  const result = await runAutocannon(server.url, spec, seconds, connections, (_status, ms) => latencies.push(ms));
  const wallSeconds = Number(process.hrtime.bigint() - wallBefore) / 1e9;
  const loadgen = process.cpuUsage(loadgenBefore);
  const serverCpuAfter = server.cpuSeconds();
  const sortedLatencies = Float64Array.from(latencies).sort();
  const measurement: Measurement = {
    name,
    rps: result.requests.total / result.duration,
    rpsCv: result.requests.mean > 0 ? result.requests.stddev / result.requests.mean : Number.NaN,
    p50: percentile(sortedLatencies, 50),
    p95: percentile(sortedLatencies, 95),
    p99: percentile(sortedLatencies, 99),
    acP97_5: result.latency.p97_5,
    requests: result.requests.total,
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    statusCodes: statusCodesOf(result),
    serverCpu: serverCpuBefore !== undefined && serverCpuAfter !== undefined ? (serverCpuAfter - serverCpuBefore) / wallSeconds : undefined,
    loadgenCpu: (loadgen.user + loadgen.system) / 1e6 / wallSeconds,
  };
  process.stderr.write(` ${measurement.rps.toFixed(0)} req/s\n`);
  if (measurement.non2xx > 0 || measurement.errors > 0) {
    failures.push(
      `${name}: ${measurement.non2xx} non-2xx responses, ${measurement.errors} errors (${measurement.timeouts} timeouts), status codes ${JSON.stringify(measurement.statusCodes)}`,
    );
  }
  return measurement;
}

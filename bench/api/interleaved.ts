/**
 * Two servers measured under the same conditions (bench:budget's uncached requests, bench/README.md):
 * both stay up and the load alternates between them in short slices, so that the machine's other
 * work, which moves from one second to the next, weighs on both alike. Each server's CPU (/proc) is
 * read over the whole round, its idle slices included: work a server defers past the end of its
 * own slice (a WAL checkpoint, the garbage collector) still counts against its requests, and an
 * idle server spends next to nothing.
 */
import type autocannon from 'autocannon';
import type { ServerChild } from '../lib/server-child.ts';
import { type RequestSpec, runAutocannon, statusCodesOf } from './measure.ts';

/** What one slice of load did: its answered requests (or sessions), how long it ran, what went wrong. */
export interface SliceDone {
  requests: number;
  seconds: number;
  /** Set when an answer was wrong or a request failed. */
  failure?: string | undefined;
}

export interface Contender {
  label: string;
  /** The server's CPU so far (user + system, s): a bench server child, or the simulator bench's; its main thread's run and wait times where known. */
  server: Pick<ServerChild, 'cpuSeconds'> & Partial<Pick<ServerChild, 'schedTimes'>>;
  /** One slice of load on the server. */
  load: (seconds: number, connections: number) => Promise<SliceDone>;
}

/** An autocannon run as a slice. */
export function autocannonSlice(result: autocannon.Result): SliceDone {
  const failed = result.non2xx > 0 || result.errors > 0;
  return {
    requests: result.requests.total,
    seconds: result.duration,
    failure: failed ? `${result.non2xx} non-2xx, ${result.errors} errors ${JSON.stringify(statusCodesOf(result))}` : undefined,
  };
}

/** The load of a request spec (bench:api's scenarios), as a contender runs it. */
export const specLoad =
  (server: ServerChild, spec: RequestSpec): Contender['load'] =>
  async (seconds, connections) =>
    autocannonSlice(await runAutocannon(server.url, spec, seconds, connections));

export interface SliceOptions {
  /** Slices per server in the round. */
  slices: number;
  sliceSeconds: number;
  connections: number;
  failures: string[];
  /**
   * After each slice, wait (up to a second) until the server that ran it is idle again: the work it
   * deferred past its slice (the WAL checkpointer's copy, the collector's threads) is then done in
   * its own time, counted to it, not on the core beside the next server's slice (bench/README.md,
   * "Issue 40, fifth pass").
   */
  settle?: boolean;
}

/** A server is idle again when it spent at most this much CPU over `SETTLE_POLL_MS` (one /proc tick). */
const SETTLE_IDLE_SECONDS = 0.01;
const SETTLE_POLL_MS = 50;
const SETTLE_MAX_MS = 1000;

/** Waits until `server` spends next to nothing, for at most SETTLE_MAX_MS. */
export async function settled(server: Contender['server']): Promise<void> {
  let before: number | undefined = server.cpuSeconds();
  if (before === undefined) return;
  for (let waited = 0; waited < SETTLE_MAX_MS; waited += SETTLE_POLL_MS) {
    await new Promise((resolve) => setTimeout(resolve, SETTLE_POLL_MS));
    const now: number = server.cpuSeconds() ?? before;
    if (now - before <= SETTLE_IDLE_SECONDS) return;
    before = now;
  }
}

/** Warms the contenders up at the same time, for `seconds` (only their compiled code matters here, not their CPU), then waits until each is idle. */
export async function warmUpTogether(contenders: Contender[], seconds: number, options: Pick<SliceOptions, 'connections' | 'failures'>): Promise<void> {
  await Promise.all(contenders.map((contender) => slice(contender, seconds, { ...options, slices: 1, sliceSeconds: seconds })));
  for (const contender of contenders) await settled(contender.server);
}

/** What a round gave one server: its answered requests, its CPU over the round, and their quotient. */
export interface Share {
  requests: number;
  cpuSeconds: number;
  /** Server CPU a request, µs. */
  µsPerRequest: number;
  /** Requests a second while its slices ran. */
  rps: number;
  /**
   * Of the time its main thread was ready to run over the round, the share it waited for its core
   * (other work on it): NaN where not known. Its CPU a request grows with it (caches shared, fewer
   * requests a wake-up), so a round with much of it says more of the machine than of the server.
   */
  waited: number;
}

/** The contenders' main-thread run and wait times now. */
const schedOf = (contenders: Contender[]) => contenders.map(({ server }) => server.schedTimes?.());

function waitedOver(before: ReturnType<typeof schedOf>[number], after: ReturnType<typeof schedOf>[number]): number {
  if (!before || !after) return Number.NaN;
  const run = after.run - before.run;
  const wait = after.wait - before.wait;
  return run + wait > 0 ? wait / (run + wait) : Number.NaN;
}

async function slice(contender: Contender, seconds: number, options: SliceOptions): Promise<{ requests: number; seconds: number }> {
  const done = await contender.load(seconds, options.connections);
  if (done.failure !== undefined) options.failures.push(`${contender.label}: ${done.failure}`);
  return done;
}

/** Warms each contender up alone, for its own number of seconds (the app's larger path compiles later than a floor's). */
export async function warmUp(contenders: Array<[Contender, number]>, options: Pick<SliceOptions, 'connections' | 'failures'>): Promise<void> {
  for (const [contender, seconds] of contenders) {
    if (seconds > 0) await slice(contender, seconds, { ...options, slices: 1, sliceSeconds: seconds });
  }
}

/**
 * One round: `slices` slices of each contender, alternating, the first contender starting (pass
 * them in turn, round after round, so that neither always follows the other).
 */
export async function interleavedRound(contenders: Contender[], options: SliceOptions): Promise<Share[]> {
  const schedBefore = schedOf(contenders);
  const cpuBefore = contenders.map(({ server }) => server.cpuSeconds() ?? Number.NaN);
  const totals = contenders.map(() => ({ requests: 0, seconds: 0 }));
  for (let n = 0; n < options.slices; n++) {
    for (const [index, contender] of contenders.entries()) {
      const done = await slice(contender, options.sliceSeconds, options);
      totals[index]!.requests += done.requests;
      totals[index]!.seconds += done.seconds;
      if (options.settle) await settled(contender.server);
    }
  }
  const schedAfter = schedOf(contenders);
  return contenders.map(({ server }, index) => {
    const cpuSeconds = (server.cpuSeconds() ?? Number.NaN) - cpuBefore[index]!;
    const { requests, seconds } = totals[index]!;
    return { requests, cpuSeconds, µsPerRequest: (cpuSeconds / requests) * 1e6, rps: requests / seconds, waited: waitedOver(schedBefore[index], schedAfter[index]) };
  });
}


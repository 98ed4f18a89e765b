/**
 * The floor of the IVR's HTTP lookup (bench:budget's session start, bench/README.md): the least
 * this stack does for the request the IVR's `lookup` block makes, Node's own client on a keep-alive
 * agent asking the same CRM stub the same question and parsing its JSON answer, with nothing of
 * ours around it. It runs as its own process, pinned as the servers are, so that its CPU is read
 * from /proc like theirs. The menu-only plan does no request: the IVR's start is held to the
 * menu-only plan's CPU plus this one's, its own work done the least costly way.
 *
 * It asks one request at a time, each sent once the last is answered: the IVR's lookups are
 * one a session, each answered in a wake-up of its own. Sixteen in flight, as fast as the stub
 * answers, a client reads many answers a wake-up and spent 30 µs a request (25,000 to 33,000 a
 * second); paced with timers at the IVR's rate it spent 150 to 480 µs, most of it the timers' and
 * the idle loop's, which the IVR does not pay for its lookups (bench/README.md).
 *
 * As a child: BENCH_CRM_URL names the stub; each IPC message `{ id, seconds }` runs requests one
 * after another for that long and answers `{ id, requests, seconds, failure? }`.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import http from 'node:http';
import type { SliceDone } from '../api/interleaved.ts';
import { procCpuSeconds, procSchedTimes, type SchedTimes } from '../lib/proc-cpu.ts';

/** What the IVR's `lookup` asks (fixtures/plans/benchmark-ivr.json: GET …/api/customers?phone={{caller}}, the simulator's caller). */
const LOOKUP_PATH = '/api/customers?phone=bench';

interface RunMessage {
  id: number;
  seconds: number;
}

interface RunReply extends SliceDone {
  id: number;
}

function getJson(agent: http.Agent, url: URL): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const request = http.get({ agent, host: url.hostname, port: url.port, path: LOOKUP_PATH }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (body += chunk));
      response.on('end', () => {
        if (response.statusCode !== 200) reject(new Error(`the CRM answered ${response.statusCode}`));
        else resolve(JSON.parse(body));
      });
      response.on('error', reject);
    });
    request.on('error', reject);
  });
}

async function run(agent: http.Agent, url: URL, { id, seconds }: RunMessage): Promise<RunReply> {
  const began = performance.now();
  const deadline = began + seconds * 1000;
  let requests = 0;
  let failure: string | undefined;
  while (performance.now() < deadline && failure === undefined) {
    try {
      const answer = (await getJson(agent, url)) as { customer?: { name?: unknown } };
      if (typeof answer.customer?.name !== 'string') failure = `the CRM answered ${JSON.stringify(answer)}`;
      requests++;
    } catch (error) {
      failure = String(error);
    }
  }
  return { id, requests, seconds: (performance.now() - began) / 1000, failure };
}

/** The child, started by `startLookupFloor`. */
function serveAsChild(send: (message: ChildMessage) => void): void {
  const url = new URL(process.env.BENCH_CRM_URL ?? '');
  const agent = new http.Agent({ keepAlive: true });
  process.on('message', (message: RunMessage) => {
    void run(agent, url, message).then(send);
  });
  process.on('disconnect', () => process.exit(0));
  send({ ready: true });
}

type ChildMessage = { ready: true } | RunReply;

if (process.send && process.env.BENCH_CRM_URL) serveAsChild((message) => process.send!(message));

export interface LookupFloor {
  /** The child's CPU so far, user + system, s. */
  cpuSeconds(): number | undefined;
  /** Its main thread's time on its core and waiting for it (/proc). */
  schedTimes(): SchedTimes | undefined;
  /** Requests to the stub for `seconds`, one at a time: one slice of an interleaved round. */
  run(seconds: number): Promise<SliceDone>;
  stop(): Promise<void>;
}

/** The lookup's floor as a child process asking `crmUrl`; `pin`: on the servers' CPU (1). */
export async function startLookupFloor(crmUrl: string, pin: boolean): Promise<LookupFloor> {
  const args = ['--import', import.meta.resolve('tsx'), import.meta.filename];
  const child: ChildProcess = spawn(pin ? 'taskset' : process.execPath, pin ? ['-c', '1', process.execPath, ...args] : args, {
    env: { ...process.env, BENCH_CRM_URL: crmUrl },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const pending = new Map<number, (reply: RunReply) => void>();
  let serial = 0;
  await new Promise<void>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the lookup's floor exited (${code}) before it was ready`)));
    child.on('message', (message: ChildMessage) => {
      if ('ready' in message) resolve();
      else pending.get(message.id)?.(message);
    });
  });
  return {
    cpuSeconds: () => procCpuSeconds(child.pid),
    schedTimes: () => procSchedTimes(child.pid),
    run(seconds) {
      const id = ++serial;
      return new Promise((resolve) => {
        pending.set(id, (reply) => {
          pending.delete(id);
          resolve(reply);
        });
        child.send({ id, seconds } satisfies RunMessage);
      });
    },
    async stop() {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.disconnect();
      await exited;
    },
  };
}

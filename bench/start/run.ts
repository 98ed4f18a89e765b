/**
 * `npm run bench:start`: the server as `npm run dev` runs it (TypeScript through tsx's loader)
 * against the production build `npm start` runs (`node --enable-source-maps apps/server/dist/main.js`),
 * alternating, same machine, same run (bench/README.md, "Production build"). Each start is a
 * fresh SQLite data dir: the time from spawning the process to its first `200` on
 * /api/v1/health, its memory (RSS) then and after the load, and the server's CPU (/proc) per
 * request over `BENCH_REQUESTS` cached `GET /api/v1/users/1` with a bearer token (a JWT check, a
 * sign-in query, a cached read) at 10 connections.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { envNumber } from '../lib/env.ts';
import { fmt, median, table } from '../lib/load.ts';
import { procCpuSecondsOf } from '../lib/proc-cpu.ts';
import { BENCH_ADMIN } from '../lib/server-config.ts';

const ROUNDS = envNumber('BENCH_ROUNDS', 3);
const REQUESTS = envNumber('BENCH_REQUESTS', 5000);
const serverDir = path.resolve(import.meta.dirname, '../../apps/server');
const modes = {
  'tsx (npm run dev)': ['--import', 'tsx', path.join(serverDir, 'src/main.ts')],
  'built (npm start)': ['--enable-source-maps', path.join(serverDir, 'dist/main.js')],
} as const;
type Mode = keyof typeof modes;

const freePort = () =>
  new Promise<number>((resolve) => {
    const probe = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });

function procStat(pid: number): { cpuMs: number; rssMb: number } {
  const rss = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  return { cpuMs: procCpuSecondsOf(pid) * 1000, rssMb: Number(rss) / 1024 };
}

interface Round {
  mode: Mode;
  startMs: number;
  rssStartMb: number;
  rssLoadedMb: number;
  cpuPerRequestMs: number;
  requestsPerSecond: number;
}

async function runOnce(mode: Mode): Promise<Round> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'voxplan-bench-start-'));
  const port = await freePort();
  const env = { ...process.env, DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'silent', ADMIN_PASSWORD: BENCH_ADMIN.password, MASTER_KEY: '42'.repeat(32) };
  const began = performance.now();
  const child: ChildProcess = spawn(process.execPath, [...modes[mode]], { env, stdio: ['ignore', 'ignore', 'inherit'] });
  const url = `http://127.0.0.1:${port}`;
  try {
    for (;;) {
      const ok = await fetch(`${url}/api/v1/health`).then((response) => response.ok, () => false);
      if (ok) break;
      if (child.exitCode !== null) throw new Error(`${mode} exited with ${child.exitCode}`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const startMs = performance.now() - began;
    const rssStartMb = procStat(child.pid!).rssMb;
    const login = (await (await fetch(`${url}/api/v1/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(BENCH_ADMIN) })).json()) as { token: string };
    const request = { method: 'GET' as const, path: '/api/v1/users/1', headers: { authorization: `Bearer ${login.token}` } };
    // Warm-up: the JIT, the read cache's second asking.
    await new Promise((resolve, reject) => autocannon({ url, requests: [request], connections: 10, amount: 500 }, (error, result) => (error ? reject(error) : resolve(result))));
    const before = procStat(child.pid!).cpuMs;
    const result = await new Promise<autocannon.Result>((resolve, reject) =>
      autocannon({ url, requests: [request], connections: 10, amount: REQUESTS }, (error, done) => (error ? reject(error) : resolve(done))),
    );
    if (result.non2xx + result.errors > 0) throw new Error(`${mode}: ${result.non2xx} non-2xx and ${result.errors} errors`);
    const after = procStat(child.pid!);
    return { mode, startMs, rssStartMb, rssLoadedMb: after.rssMb, cpuPerRequestMs: (after.cpuMs - before) / REQUESTS, requestsPerSecond: result.requests.average };
  } finally {
    child.kill('SIGKILL');
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

execFileSync(process.execPath, ['--import', 'tsx', path.join(serverDir, 'scripts/build.ts')], { stdio: 'inherit' });
const rounds: Round[] = [];
for (let round = 0; round < ROUNDS; round++) {
  // Alternating, so that drift on a shared machine falls on both.
  const order: Mode[] = round % 2 === 0 ? ['tsx (npm run dev)', 'built (npm start)'] : ['built (npm start)', 'tsx (npm run dev)'];
  for (const mode of order) rounds.push(await runOnce(mode));
}
const rows = [['', 'start (ms)', 'RSS at start (MB)', 'RSS after load (MB)', 'CPU per request (ms)', 'req/s']];
for (const round of rounds) rows.push([round.mode, fmt(round.startMs, 0), fmt(round.rssStartMb, 1), fmt(round.rssLoadedMb, 1), fmt(round.cpuPerRequestMs, 3), fmt(round.requestsPerSecond, 0)]);
for (const mode of Object.keys(modes) as Mode[]) {
  const of = rounds.filter((round) => round.mode === mode);
  rows.push([
    `median, ${mode}`,
    fmt(median(of.map((r) => r.startMs)), 0),
    fmt(median(of.map((r) => r.rssStartMb)), 1),
    fmt(median(of.map((r) => r.rssLoadedMb)), 1),
    fmt(median(of.map((r) => r.cpuPerRequestMs)), 3),
    fmt(median(of.map((r) => r.requestsPerSecond)), 0),
  ]);
}
process.stdout.write(`\n${table(rows)}\n\nNode ${process.version}, ${os.availableParallelism()} CPUs, load average ${os.loadavg().map((load) => load.toFixed(2)).join(' ')}, ${REQUESTS} requests a round\n`);

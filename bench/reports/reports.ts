/**
 * bench:reports, the reports' part: the reports list (its first page and a deep one), counts and
 * the CSV export over 1,000,000 call reports on PostgreSQL and 100,000 on SQLite, through the real
 * server over HTTP, one request at a time: median and p95 latency, the server's CPU per request,
 * and the ratio to a hello-world GET measured the same way in the same run. The export of 100,000
 * rows is timed to its last byte, with the server's memory (RSS) before, at its peak and after.
 * Targets: the export of 100,000 rows ≤ 5 s, the server's RSS growing by at most 100 MB over it.
 *
 *   BENCH_DIALECT=both             sqlite | postgres | both (PostgreSQL: a throwaway server of its own)
 *   BENCH_REPORTS_POSTGRES=1000000 reports seeded on PostgreSQL
 *   BENCH_REPORTS_SQLITE=100000    reports seeded on SQLite
 *   BENCH_REQUESTS=20              measured requests per list or count (after 3 of warm-up); exports: 3
 *   BENCH_PIN=1                    0: no CPU pinning
 *   BENCH_STRICT=0                 1: exit 3 when a target FAILs (wrong answers always exit 1)
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runBench } from '../lib/bench-main.ts';
import { benchDatabases } from '../lib/dialects.ts';
import { fmt, table } from '../lib/load.ts';
import { cpuCount, delay, LOADGEN_CPU, pinSelf, SERVER_CPU, type ServerChild, ServerChildren } from '../lib/server-child.ts';
import { helloBaseline, readJson, reportsBenchSettings, serverScript, startSeededServer, timeGets } from './harness.ts';
import { type SeededReports, SEED_START } from './seed.ts';

const settings = { ...reportsBenchSettings({ requests: 20, warmup: 3 }), exports: 3 };
const EXPORT_ROWS = 100_000;
const EXPORT_TARGET_MS = 5_000;
/**
 * The export's memory target. The file is 22 MB, 45 MB as the strings that make it; the rows as
 * objects several times that: a server that held the set would grow by hundreds of MB.
 */
const RSS_GROWTH_TARGET_MB = 100;
const { pinning } = settings;

const failures: string[] = [];
let targetFailures = 0;

/** The child's resident memory in MB (Linux /proc), NaN elsewhere. */
function rssMb(server: ServerChild): number {
  try {
    const status = fs.readFileSync(`/proc/${server.process.pid}/status`, 'utf8');
    return Number(/^VmRSS:\s+(\d+) kB/m.exec(status)?.[1]) / 1024;
  } catch {
    return Number.NaN;
  }
}

/** Reads a CSV answer as it comes without keeping it: its lines, and X-Total-Count. */
async function countLines(response: Response): Promise<{ lines: number; total: number; bytes: number }> {
  let lines = 0;
  let bytes = 0;
  for await (const chunk of response.body! as unknown as AsyncIterable<Uint8Array>) {
    bytes += chunk.length;
    for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) lines++;
  }
  return { lines, total: Number(response.headers.get('x-total-count')), bytes };
}

/**
 * A filter for the query string. The read cache keys on the parameter's text, and the same
 * request again would be answered from it: `n` trailing spaces (JSON ignores them) make each
 * request's text its own, so every one reaches the database.
 */
const filterOf = (filter: unknown, n = 0) => encodeURIComponent(JSON.stringify(filter) + ' '.repeat(n));

/** The list and count calls, as the reports screen makes them. */
function queries(seeded: SeededReports): Array<{ name: string; url: (n: number) => string; check?: (body: unknown) => string | undefined }> {
  const page = 25;
  const month = { gte: new Date(Date.parse(SEED_START) + 300 * 86_400_000).toISOString(), lt: new Date(Date.parse(SEED_START) + 330 * 86_400_000).toISOString() };
  const isPage = (body: unknown) => (Array.isArray(body) && body.length === page ? undefined : `${Array.isArray(body) ? body.length : 'no'} rows, not ${page}`);
  const isCount = (body: unknown) => (typeof (body as { count?: unknown }).count === 'number' && (body as { count: number }).count > 0 ? undefined : `count ${JSON.stringify(body)}`);
  return [
    { name: 'list, first page', url: (n) => `/reports?filter=${filterOf({ limit: page }, n)}`, check: isPage },
    { name: 'list, page 400', url: (n) => `/reports?filter=${filterOf({ limit: page, skip: page * 399 }, n)}`, check: isPage },
    { name: 'list, a month, routed, a plan', url: (n) => `/reports?filter=${filterOf({ where: { start_time: month, disposition: 'routed', plan_id: seeded.planIds[0] }, limit: page }, n)}`, check: isPage },
    { name: 'count, all', url: (n) => `/reports/count?where=${filterOf({}, n)}`, check: isCount },
    { name: 'count, a month', url: (n) => `/reports/count?where=${filterOf({ start_time: month }, n)}`, check: isCount },
    { name: 'count, a month, routed, a plan', url: (n) => `/reports/count?where=${filterOf({ start_time: month, disposition: 'routed', plan_id: seeded.planIds[0] }, n)}`, check: isCount },
  ];
}

const servers = new ServerChildren(serverScript);

async function main(): Promise<void> {
  if (pinning) pinSelf([LOADGEN_CPU]);
  process.stdout.write(
    `Voxplan reports bench: list, count and export — node ${process.version}, ${cpuCount} x ${os.cpus()[0]?.model ?? 'CPU'}\n` +
      `${settings.requests} requests per list or count and ${settings.exports} exports, one at a time; ` +
      (pinning ? `client on CPU ${LOADGEN_CPU}, server on CPU ${SERVER_CPU}\n` : 'no CPU pinning\n'),
  );
  const tempDir = fs.mkdtempSync(path.join(os.tmpdir(), 'voxplan-bench-reports-list-'));
  servers.onStopAll(() => fs.rmSync(tempDir, { recursive: true, force: true }));
  const databaseUrl = await benchDatabases(servers, settings.dialects);
  const serverCpu = pinning ? SERVER_CPU : undefined;

  const baseline = await helloBaseline(servers, serverCpu, settings.requests * 5, settings.warmup);

  const rows: string[][] = [['request', 'reports', 'median ms', 'p95 ms', 'ms CPU/request', '× hello']];
  rows.push(['hello-world GET /', '', fmt(baseline.median, 3), fmt(baseline.p95, 3), fmt(baseline.cpuMs, 3), '1.0']);
  const exportRows: string[][] = [['export', 'rows', 'MB', 'median s', 'slowest s', 's CPU', 'RSS before MB', 'peak MB', 'after MB', 'target']];
  for (const dialect of settings.dialects) {
    const count = settings.reports[dialect];
    const { app, seeded, token } = await startSeededServer(servers, dialect, {
      count,
      dataDir: path.join(tempDir, dialect),
      databaseUrl: await databaseUrl(dialect),
      serverCpu,
    });
    const tenantHeaders = { authorization: `Bearer ${token}`, 'x-tenant-id': String(seeded.tenantId) };
    for (const query of queries(seeded)) {
      process.stderr.write(`  ${dialect}: ${query.name}\n`);
      const timing = await timeGets(app, (n) => `/api/v1${query.url(n)}`, tenantHeaders, { count: settings.requests, warmup: settings.warmup, read: readJson });
      const wrong = query.check?.(timing.last);
      if (wrong) failures.push(`${dialect}, ${query.name}: ${wrong}`);
      rows.push([`${dialect}: ${query.name}`, count.toLocaleString('en'), fmt(timing.median, 2), fmt(timing.p95, 2), fmt(timing.cpuMs, 2), fmt(timing.median / baseline.median, 1)]);
    }

    // The newest EXPORT_ROWS reports of every tenant, test sessions included: exactly that many rows.
    const newest = Math.max(1, count - EXPORT_ROWS + 1);
    const since = new Date(Date.parse(SEED_START) + newest * seeded.spacingS * 1000).toISOString();
    const exportUrl = `/api/v1/reports/export.csv?filter=${filterOf({ where: { start_time: { gte: since }, is_test: { inq: [true, false] } } })}`;
    const expected = Math.min(count, EXPORT_ROWS);
    process.stderr.write(`  ${dialect}: export of ${expected.toLocaleString('en')} rows\n`);
    // What the server settles at after a first export (its code loaded, its pools filled) is the "before".
    await timeGets(app, exportUrl, { authorization: `Bearer ${token}` }, { count: 1, warmup: 0, read: countLines });
    await delay(500);
    const before = rssMb(app);
    let peak = before;
    const sampler = setInterval(() => (peak = Math.max(peak, rssMb(app))), 20);
    const exported = await timeGets(app, exportUrl, { authorization: `Bearer ${token}` }, { count: settings.exports, warmup: 0, read: countLines });
    clearInterval(sampler);
    await delay(500);
    const after = rssMb(app);
    const { lines, total, bytes } = exported.last;
    if (total !== expected || lines !== expected + 1) failures.push(`${dialect}, export: X-Total-Count ${total} and ${lines} lines, for ${expected} rows and a header`);
    const judged = expected >= EXPORT_ROWS;
    const ok = exported.median <= EXPORT_TARGET_MS && peak - before <= RSS_GROWTH_TARGET_MB;
    if (judged && !ok) targetFailures++;
    exportRows.push([
      `${dialect}: export.csv`,
      expected.toLocaleString('en'),
      fmt(bytes / 1024 / 1024, 1),
      fmt(exported.median / 1000, 2),
      fmt(exported.p95 / 1000, 2),
      fmt(exported.cpuMs / 1000, 2),
      fmt(before, 0),
      fmt(peak, 0),
      fmt(after, 0),
      judged ? (ok ? 'ok' : 'FAIL') : ok ? '(ok)' : '(over)',
    ]);
    await servers.stop(app);
  }

  process.stdout.write(`\n${table(rows)}\n\n${table(exportRows)}\n`);
  process.stdout.write(
    `\nOne request at a time over HTTP; lists and counts as the tenant nine reports in ten belong to (X-Tenant-Id), test sessions left out as the screen does;\n` +
      `each request's filter text differs (trailing spaces), so none is answered from the read cache.\n` +
      `× hello = median ÷ the hello-world GET's median in this run; ms CPU/request = the server process's CPU (/proc, 10 ms ticks) ÷ requests, PostgreSQL's own not included.\n` +
      `The export: the newest ${EXPORT_ROWS.toLocaleString('en')} reports of every tenant as the administrator, read to the last byte; RSS sampled every 20 ms.\n` +
      `Targets: the export of ${EXPORT_ROWS.toLocaleString('en')} rows ≤ ${EXPORT_TARGET_MS / 1000} s (median), the server's RSS at most ${RSS_GROWTH_TARGET_MB} MB over its level before.\n`,
  );
}

await runBench(servers, main, () => ({ failures, targetFailures, strict: settings.strict }));

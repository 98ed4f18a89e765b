/** bench:api's tables (bench/README.md): the scenarios against the hello-world, the dialects side by side, the floor. */
import type { Measurement } from './measure.ts';
import type { ExplainResult } from './protocol.ts';

export const fmt = (value: number, digits = 2) => (Number.isFinite(value) ? value.toFixed(digits) : 'n/a');
export const pct = (value: number | undefined) => (value === undefined ? 'n/a' : `${Math.round(value * 100)}%`);

export function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, col) => Math.max(...rows.map((row) => (row[col] ?? '').length)));
  const line = (row: string[]) => `| ${row.map((cell, col) => cell.padEnd(widths[col]!)).join(' | ')} |`;
  const rule = `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`;
  return [line(rows[0]!), rule, ...rows.slice(1).map(line)].join('\n');
}

export interface LatencyTarget {
  percentile: 95 | 99;
  /** p95 must stay under it; p99 at most it. */
  ms: number;
}

export interface Verdict {
  measurement: Measurement;
  ratioTarget: number | undefined;
  latency: LatencyTarget;
}

/** Targets missed in the reports printed so far (the exit code's, with BENCH_STRICT=1). */
export const tally = { targetFailures: 0 };

export const latencyOk = (m: Measurement, target: LatencyTarget) =>
  target.percentile === 95 ? m.p95 < target.ms : m.p99 <= target.ms;
export const latencyLabel = (target: LatencyTarget) => `p${target.percentile} ${target.percentile === 95 ? '<' : '<='} ${target.ms}ms`;
export const perCpu = (m: Measurement) => (m.serverCpu !== undefined && m.serverCpu > 0 ? m.rps / m.serverCpu : Number.NaN);
export const bestOf = (hellos: Measurement[]) => hellos.reduce((best, m) => (m.rps > best.rps ? m : best));

/** The hello-world runs bracket the others; the best one is the baseline (the lower ratio). */
export function report(title: string, hellos: Measurement[], verdicts: Verdict[]): string {
  const baseline = bestOf(hellos);
  const header = [
    'scenario', 'req/s', '±/s', 'p50 ms', 'p95 ms', 'p99 ms', 'ac p97.5', 'non-2xx', 'ratio', 'ratio target', 'latency target',
    'srv CPU', 'loadgen CPU', 'µs CPU/req', 'req/CPU-s', 'CPU ratio',
  ];
  const rows = [header];
  const helloRows: Verdict[] = hellos.map((measurement) => ({ measurement, ratioTarget: undefined, latency: { percentile: 95, ms: 10 } }));
  for (const { measurement: m, ratioTarget, latency } of [...helloRows, ...verdicts]) {
    const isHello = hellos.includes(m);
    const ratio = m.rps / baseline.rps;
    const ratioOk = ratioTarget === undefined || ratio >= ratioTarget;
    const timeOk = latencyOk(m, latency);
    if (!isHello && (!ratioOk || !timeOk)) tally.targetFailures++;
    rows.push([
      m.name,
      fmt(m.rps, 0),
      Number.isFinite(m.rpsCv) ? `${Math.round(m.rpsCv * 100)}%` : 'n/a',
      fmt(m.p50),
      fmt(m.p95),
      fmt(m.p99),
      fmt(m.acP97_5, 0),
      String(m.non2xx + m.errors),
      fmt(ratio),
      ratioTarget !== undefined ? `>= ${ratioTarget} ${ratioOk ? 'PASS' : 'FAIL'}` : m === baseline ? '(baseline)' : '',
      isHello ? '' : `${latencyLabel(latency)} ${timeOk ? 'PASS' : 'FAIL'}`,
      pct(m.serverCpu),
      pct(m.loadgenCpu),
      fmt(1e6 / perCpu(m), 0),
      fmt(perCpu(m), 0),
      fmt(perCpu(m) / perCpu(baseline)),
    ]);
  }
  return `\n${title}\n${table(rows)}\n`;
}

/** SQLite's figures with PostgreSQL's beside them, scenario by scenario (schema as migrated). */
export function sideBySide(hellos: Measurement[], runs: { dialect: 'sqlite' | 'postgres'; verdicts: Verdict[] }[]): string {
  const baseline = bestOf(hellos);
  const header = ['scenario', 'target'];
  for (const { dialect } of runs) header.push(`${dialect} req/s`, 'ratio', 'p99 ms', 'µs CPU/req');
  const rows = [header];
  for (const [index, first] of runs[0]!.verdicts.entries()) {
    const row = [first.measurement.name, `${first.ratioTarget !== undefined ? `>= ${first.ratioTarget}, ` : ''}${latencyLabel(first.latency)}`];
    for (const { verdicts } of runs) {
      const m = verdicts[index]!.measurement;
      row.push(fmt(m.rps, 0), fmt(m.rps / baseline.rps), fmt(m.p99), fmt(1e6 / perCpu(m), 0));
    }
    rows.push(row);
  }
  return `\nSide by side (hello-world baseline ${fmt(baseline.rps, 0)} req/s, ${fmt(1e6 / perCpu(baseline), 0)} µs CPU/req; ` +
    `on PostgreSQL the CPU is the Node server's alone, not the database's)\n${table(rows)}\n`;
}
/** The uncached scenarios' floor (floor.ts) beside the app on SQLite: a target over the floor's ratio is out of any design's reach here. */
export function floorReport(hellos: Measurement[], floor: Verdict[], app: Verdict[]): string {
  const baseline = bestOf(hellos);
  const rows = [['scenario', 'targets', 'floor req/s', 'floor ratio', 'floor p99 ms', 'floor µs CPU/req', 'app ratio', 'app p99 ms', 'app µs CPU/req', 'app ÷ floor (CPU)', 'targets vs floor']];
  for (const { measurement: f, ratioTarget, latency } of floor) {
    const a = app.find((verdict) => verdict.measurement.name === f.name)?.measurement;
    const floorRatio = f.rps / baseline.rps;
    const beyond = [
      ...(ratioTarget !== undefined && floorRatio < ratioTarget ? ['ratio'] : []),
      ...(latencyOk(f, latency) ? [] : [`p${latency.percentile}`]),
    ];
    rows.push([
      f.name,
      `${ratioTarget !== undefined ? `>= ${ratioTarget}, ` : ''}${latencyLabel(latency)}`,
      fmt(f.rps, 0),
      fmt(floorRatio),
      fmt(f.p99),
      fmt(1e6 / perCpu(f), 0),
      a ? fmt(a.rps / baseline.rps) : 'n/a',
      a ? fmt(a.p99) : 'n/a',
      a ? fmt(1e6 / perCpu(a), 0) : 'n/a',
      a ? fmt(perCpu(f) / perCpu(a)) : 'n/a',
      beyond.length === 0 ? 'within the floor' : `${beyond.join(' and ')} BEYOND THE FLOOR`,
    ]);
  }
  return (
    `\nThe floor on SQLite (floor.ts: bare Fastify and better-sqlite3 statements prepared once, the same rows and requests; ` +
    `no sign-in, validation, audit or read cache): no design of the app can pass a target the floor itself misses on this machine\n${table(rows)}\n`
  );
}

export function printExplain(label: string, result: ExplainResult): void {
  process.stdout.write(
    `  ${label}: ${result.rows} row(s), direct query (no HTTP) median ${fmt(result.medianMs, 3)} ms\n` +
      `    SQL:  ${result.sql}\n` +
      result.plan.map((line) => `    plan: ${line}\n`).join(''),
  );
}

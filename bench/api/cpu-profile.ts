/**
 * Summarises a V8 .cpuprofile (as written by `node --cpu-prof` or the inspector's Profiler.stop):
 * self time per function and per package, and inclusive time per function.
 * Usage as a script: tsx bench/api/cpu-profile.ts file.cpuprofile [top]
 */
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
  columnNumber: number;
}

interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}

export interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples?: number[];
  timeDeltas?: number[];
}

export interface Entry {
  name: string;
  ms: number;
  share: number;
}

export interface ProfileSummary {
  totalMs: number;
  /** Time outside JavaScript and GC: the process was waiting (epoll) or idle. */
  idleMs: number;
  selfByFunction: Entry[];
  selfByPackage: Entry[];
  inclusiveByFunction: Entry[];
}

const IDLE = new Set(['(idle)', '(program)']);

function shortUrl(url: string): string {
  if (url === '') return '';
  const path = url.startsWith('file://') ? fileURLToPath(url) : url;
  const nm = path.lastIndexOf('/node_modules/');
  if (nm >= 0) return path.slice(nm + '/node_modules/'.length);
  const root = path.indexOf('/apps/');
  if (root >= 0) return path.slice(root + 1);
  const pkgs = path.indexOf('/packages/');
  if (pkgs >= 0) return path.slice(pkgs + 1);
  const bench = path.indexOf('/bench/');
  if (bench >= 0) return path.slice(bench + 1);
  return path;
}

export function packageOf(frame: CallFrame): string {
  const { url, functionName } = frame;
  if (url === '') return functionName.startsWith('(') ? functionName : '(native / V8 builtins)';
  if (url.startsWith('node:')) return `node:${url.slice(5).split('/')[0] === 'internal' ? url.slice(5).split('/').slice(0, 2).join('/') : url.slice(5)}`;
  const path = url.startsWith('file://') ? fileURLToPath(url) : url;
  const nm = path.lastIndexOf('/node_modules/');
  if (nm >= 0) {
    const parts = path.slice(nm + '/node_modules/'.length).split('/');
    return parts[0]?.startsWith('@') ? `${parts[0]}/${parts[1] ?? ''}` : (parts[0] ?? path);
  }
  if (path.includes('/apps/server/src/')) return `voxplan:${path.slice(path.indexOf('/apps/server/src/') + '/apps/server/src/'.length)}`;
  if (path.includes('/packages/contracts/')) return '@voxplan/contracts (source)';
  return shortUrl(url);
}

const frameName = (frame: CallFrame): string =>
  `${frame.functionName || '(anonymous)'} ${shortUrl(frame.url)}${frame.url ? `:${frame.lineNumber + 1}` : ''}`.trim();

function sorted(map: Map<string, number>, totalMs: number, top: number): Entry[] {
  return [...map.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([name, ms]) => ({ name, ms, share: totalMs > 0 ? ms / totalMs : 0 }));
}

export function summarize(profile: CpuProfile, top = 20): ProfileSummary {
  const byId = new Map<number, ProfileNode>();
  const parent = new Map<number, number>();
  for (const node of profile.nodes) {
    byId.set(node.id, node);
    for (const child of node.children ?? []) parent.set(child, node.id);
  }
  const samples = profile.samples ?? [];
  const deltas = profile.timeDeltas ?? [];
  const selfUs = new Map<number, number>();
  // On a machine shared with other work the process is sometimes taken off the CPU between two
  // samples; that gap is not time spent in the function sampled before it. A gap longer than a few
  // sampling intervals counts as one interval (2026-11-25: 2 samples in one function weighed 346 ms).
  const sortedDeltas = deltas.slice(1).sort((a, b) => a - b);
  const interval = sortedDeltas[Math.floor(sortedDeltas.length / 2)] ?? 0;
  for (let i = 0; i < samples.length; i++) {
    // A sample's time is the gap to the next sample (the last one gets the mean gap).
    const next = deltas[i + 1];
    const gap = next ?? (profile.endTime - profile.startTime) / Math.max(1, samples.length);
    const us = interval > 0 && gap > 4 * interval ? interval : gap;
    const id = samples[i]!;
    selfUs.set(id, (selfUs.get(id) ?? 0) + us);
  }

  let totalUs = 0;
  let idleUs = 0;
  const selfFn = new Map<string, number>();
  const selfPkg = new Map<string, number>();
  const inclusive = new Map<string, number>();
  for (const [id, us] of selfUs) {
    const node = byId.get(id);
    if (!node) continue;
    totalUs += us;
    if (IDLE.has(node.callFrame.functionName)) {
      idleUs += us;
      continue;
    }
    const ms = us / 1000;
    const fn = frameName(node.callFrame);
    selfFn.set(fn, (selfFn.get(fn) ?? 0) + ms);
    // Native frames (no script) are charged to the package that called them: better-sqlite3's
    // Statement to better-sqlite3, WebCrypto's HmacJob to node:internal/crypto, and so on.
    let owner: ProfileNode | undefined = node;
    while (owner && owner.callFrame.url === '' && !owner.callFrame.functionName.startsWith('(')) {
      const up = parent.get(owner.id);
      owner = up === undefined ? undefined : byId.get(up);
    }
    const pkg = owner && owner.callFrame.functionName !== '(root)' ? packageOf(owner.callFrame) : packageOf(node.callFrame);
    selfPkg.set(pkg, (selfPkg.get(pkg) ?? 0) + ms);
    // Inclusive: every distinct function on the stack gets this sample once.
    const seen = new Set<string>();
    for (let cursor: number | undefined = id; cursor !== undefined; cursor = parent.get(cursor)) {
      const frame = byId.get(cursor)?.callFrame;
      if (!frame || frame.functionName === '(root)') continue;
      const name = frameName(frame);
      if (seen.has(name)) continue;
      seen.add(name);
      inclusive.set(name, (inclusive.get(name) ?? 0) + ms);
    }
  }
  const busyMs = (totalUs - idleUs) / 1000;
  return {
    totalMs: totalUs / 1000,
    idleMs: idleUs / 1000,
    selfByFunction: sorted(selfFn, busyMs, top),
    selfByPackage: sorted(selfPkg, busyMs, top),
    inclusiveByFunction: sorted(inclusive, busyMs, top),
  };
}

export function formatSummary(summary: ProfileSummary): string {
  const lines: string[] = [];
  const busy = summary.totalMs - summary.idleMs;
  lines.push(
    `profiled ${(summary.totalMs / 1000).toFixed(1)} s, busy (not idle/program) ${(busy / 1000).toFixed(1)} s = ${((busy / Math.max(1, summary.totalMs)) * 100).toFixed(0)}%; shares below are of busy time`,
  );
  const table = (title: string, entries: Entry[]) => {
    lines.push('', title);
    for (const entry of entries) {
      lines.push(`  ${(entry.share * 100).toFixed(1).padStart(5)}%  ${entry.ms.toFixed(0).padStart(7)} ms  ${entry.name}`);
    }
  };
  table('self time by package / area (native calls charged to the JS that made them)', summary.selfByPackage);
  table('self time by function', summary.selfByFunction);
  table('inclusive time by function (synchronous stacks only: awaits cut async callers off)', summary.inclusiveByFunction);
  return lines.join('\n');
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const file = process.argv[2];
  if (!file) {
    process.stderr.write('usage: tsx bench/api/cpu-profile.ts file.cpuprofile [top]\n');
    process.exit(2);
  }
  const profile = JSON.parse(fs.readFileSync(file, 'utf8')) as CpuProfile;
  process.stdout.write(`${formatSummary(summarize(profile, Number(process.argv[3] ?? 25)))}\n`);
}

/**
 * What the editor bench (run.ts) measures inside the page: a probe installed before the console's
 * scripts (long tasks, the frame in which the canvas last changed), Chrome's main-thread time, and
 * what an opened canvas page reports.
 */
import type { BrowserContext, CDPSession, Page } from 'playwright-core';

/** Requests of the opening, by what they are, and the address patterns that find them. */
export const arrivalPatterns = {
  session: /\/api\/v1\/refresh$/,
  profile: /\/api\/v1\/whoami$/,
  layout: /\/assets\/AppLayout-[^/]*\.js$/,
  area: /\/assets\/VisualPlansArea-[^/]*\.js$/,
  script: /\/assets\/EditorPage-[^/]*\.js$/,
  texts: /\/assets\/en\.screens-[^/]*\.js$/,
  document: /\/visual-plans\/\d+\/document$|\/plan\.json$/,
  lastScript: /\/assets\/[^/]*\.js$/,
} as const;
export type Arrivals = Record<keyof typeof arrivalPatterns, number>;

/**
 * Installed in the page before its scripts: long tasks, and a watch over the canvas that notes the
 * frame in which what it draws last changed (nodes, their measured state, edges, the view).
 */
export function pageProbe() {
  interface Probe {
    longTasks: { start: number; duration: number }[];
    canvasChangedAt: number | undefined;
    /** The first frame with a block in the DOM. */
    firstBlockAt: number | undefined;
    canvasState: string;
    /** Each change of the canvas: when, and what it became (blocks/hidden/edges/view). */
    changes: { at: number; state: string }[];
    /** Off once the plan is open: walking a thousand blocks every frame would weigh on what is measured next. */
    watching: boolean;
    frames: number[];
  }
  const probe: Probe = { longTasks: [], canvasChangedAt: undefined, firstBlockAt: undefined, canvasState: '', changes: [], watching: true, frames: [] };
  (window as unknown as { __bench: Probe }).__bench = probe;
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) probe.longTasks.push({ start: entry.startTime, duration: entry.duration });
  }).observe({ type: 'longtask', buffered: true });
  const watch = (now: number) => {
    probe.frames.push(now);
    const nodes = probe.watching ? document.querySelectorAll('.react-flow__node') : [];
    if (nodes.length > 0) {
      probe.firstBlockAt ??= now;
      let hidden = 0;
      for (const node of nodes) if ((node as HTMLElement).style.visibility === 'hidden') hidden++;
      const view = document.querySelector<HTMLElement>('.react-flow__viewport')?.style.transform ?? '';
      const state = `${nodes.length}/${hidden}/${document.querySelectorAll('.react-flow__edge').length}/${view}`;
      if (state !== probe.canvasState && hidden === 0) probe.canvasChangedAt = now;
      if (state !== probe.canvasState) probe.changes.push({ at: now, state });
      probe.canvasState = state;
    }
    requestAnimationFrame(watch);
  };
  requestAnimationFrame(watch);
}

export interface ProbeState {
  longTasks: { start: number; duration: number }[];
  canvasChangedAt: number | undefined;
  firstBlockAt: number | undefined;
  canvasState: string;
  changes: { at: number; state: string }[];
  watching: boolean;
  frames: number[];
}
export const probeOf = (page: Page) => page.evaluate(() => (window as unknown as { __bench: ProbeState }).__bench);

/** The main thread's busy time (Chrome's TaskDuration and its parts), in ms. */
export async function mainThread(cdp: CDPSession) {
  const { metrics } = await cdp.send('Performance.getMetrics');
  const value = (name: string) => (metrics.find((metric) => metric.name === name)?.value ?? 0) * 1000;
  return { task: value('TaskDuration'), script: value('ScriptDuration'), layout: value('LayoutDuration'), style: value('RecalcStyleDuration') };
}
export type MainThread = Awaited<ReturnType<typeof mainThread>>;
export const since = (after: MainThread, before: MainThread): MainThread => ({
  task: after.task - before.task,
  script: after.script - before.script,
  layout: after.layout - before.layout,
  style: after.style - before.style,
});
export const busy = (time: MainThread) => `main thread ${time.task.toFixed(0)} ms (script ${time.script.toFixed(0)}, layout ${time.layout.toFixed(0)}, style ${time.style.toFixed(0)})`;

export interface Opened {
  page: Page;
  context: BrowserContext;
  cdp: CDPSession;
  /** Navigation start to the last frame in which the canvas changed. */
  drawnMs: number;
  /** To the end of the last long task of the opening (when the page answers input at once). */
  interactiveMs: number;
  longTasks: number;
  longestTaskMs: number;
  rendered: number;
  time: MainThread;
  /** What the first frame waited for: when each had arrived (ms from navigation; 0: not asked for). */
  arrived: Arrivals;
  /** The first frame with a block in the DOM. */
  firstBlockMs: number;
  /** React Flow's view once drawn. */
  view: { x: number; y: number; zoom: number };
}

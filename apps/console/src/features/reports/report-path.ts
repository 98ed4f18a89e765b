import type { CallReportRecord } from '@voxplan/contracts';
import { type EdgeRef, pathOnPlan } from '../visual-plans/editor/test-panel/simulator-state.ts';
import type { NodeMark } from '../visual-plans/editor/decorations.ts';

type ReportPath = Pick<CallReportRecord, 'plan_id' | 'nodes' | 'failure'>;

export interface ReplayView {
  /** The marks of the plan's blocks at this step. */
  marks: Record<string, NodeMark>;
  /** The edges the exits taken before this step followed. */
  edgeIds: ReadonlySet<string>;
  /** The block the session is in at this step, when it is a block of the report's plan. */
  current: string | undefined;
}

/**
 * The report's plan as it stood at `step` (0-based index into `nodes`): the blocks entered so far
 * (numbered by the steps that entered them), the one it is in, the exits taken before it, and the
 * blocks the session never entered dimmed. Blocks of plans reached through call_plan are not on
 * this canvas (the steps list shows them).
 */
export function replayView(report: ReportPath, step: number, edges: readonly EdgeRef[], planNodeIds: readonly string[]): ReplayView {
  const last = Math.min(Math.max(step, 0), report.nodes.length - 1);
  const reached = report.nodes.slice(0, last + 1);
  const here = reached[last];
  // Where the session is, it has not left yet: its exit shows at the next step.
  const walked = here ? [...reached.slice(0, -1), { ...here, exit: null }] : [];
  const path = pathOnPlan({ path: walked, current: here ?? null }, report.plan_id, edges);
  const entered = new Set(report.nodes.filter((entry) => entry.plan_id === report.plan_id).map((entry) => entry.node_id));
  const marks: Record<string, NodeMark> = {};
  for (const id of planNodeIds) if (!entered.has(id)) marks[id] = { tone: 'dim' };
  const steps = new Map<string, number[]>();
  reached.forEach((entry, index) => {
    if (entry.plan_id === report.plan_id) steps.set(entry.node_id, [...(steps.get(entry.node_id) ?? []), index + 1]);
  });
  for (const [id, numbers] of steps) marks[id] = { tone: 'path', badge: numbers.join(' · ') };
  if (path.current !== undefined) marks[path.current] = { ...marks[path.current], tone: 'current' };
  const failed = report.failure;
  if (last === report.nodes.length - 1 && failed?.node_id && failed.plan_id === report.plan_id) marks[failed.node_id] = { ...marks[failed.node_id], tone: 'alert' };
  return { marks, edgeIds: new Set(path.edgeIds ?? []), current: path.current };
}

/**
 * What is drawn on a block besides its data: the server's errors and warnings about it, the
 * test panel's path, and the marks a read-only canvas is given (a report's path, a heat map). Kept apart from React Flow's nodes (their data is what gets saved) in a small
 * store each node subscribes to by id, so that a step of the test panel re-renders the two nodes it
 * concerns, not the thousand others.
 */
import type { VisualPlanDocument } from '@voxplan/contracts/visual-plan';

/** An error or a warning about the plan, as the server answers it. */
export type PlanIssue = VisualPlanDocument['errors'][number];
import { useSyncExternalStore } from 'react';

/**
 * How a read-only canvas marks a block: `path` a block the session went through, `current` where a
 * replay is, `dim` a block out of the story (not visited), `alert` where something went wrong.
 */
export type NodeTone = 'path' | 'current' | 'dim' | 'alert';

/** A mark a read-only canvas puts on one block (`ReadOnlyCanvas`'s `nodeDecorations`). */
export interface NodeMark {
  tone?: NodeTone;
  /** 0 to 1: how hot the block is drawn (a drop-off heat map); the colour is the theme's red, mixed into the block's background. */
  heat?: number;
  /** A short text in the block's header: a step number, a count, a percentage. */
  badge?: string;
  /** What a pointer resting on the block shows. */
  title?: string;
}

export interface NodeDecoration {
  errors: readonly PlanIssue[];
  warnings: readonly PlanIssue[];
  /** Visited by the test session. */
  visited: boolean;
  /** Where the test session is now. */
  current: boolean;
  mark?: NodeMark;
}

/** The codes of the warnings the editor works out itself as the plan is edited. */
const liveCodes = new Set(['unreachable', 'unconnected_exit', 'voice_menu_exit_unconnected', 'message_empty', 'template_not_synced', 'template_not_approved', 'template_parameter_unmapped']);

const plain: NodeDecoration = Object.freeze({ errors: [], warnings: [], visited: false, current: false });

export class DecorationStore {
  private byNode = new Map<string, NodeDecoration>();
  private listeners = new Set<() => void>();
  private saved: { errors: readonly PlanIssue[]; warnings: readonly PlanIssue[] } = { errors: [], warnings: [] };
  private live: readonly PlanIssue[] | undefined;
  private emptyFields: readonly PlanIssue[] = [];
  private issues: { errors: readonly PlanIssue[]; warnings: readonly PlanIssue[] } = this.saved;
  private path: readonly string[] = [];
  private current: string | undefined;
  private marks: Readonly<Record<string, NodeMark>> = {};

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  get(nodeId: string): NodeDecoration {
    return this.byNode.get(nodeId) ?? plain;
  }

  /** The issues of the last save or load: `errors` refuse a save, `warnings` never do. */
  setIssues(errors: readonly PlanIssue[], warnings: readonly PlanIssue[]): void {
    this.saved = { errors, warnings };
    this.merge();
  }

  /**
   * The warnings about connections, worked out as the plan is edited (connection-warnings.ts): they
   * replace the saved ones of the same codes, so that a line drawn or removed shows at once.
   */
  setConnectionWarnings(warnings: readonly PlanIssue[]): void {
    this.live = warnings;
    this.merge();
  }

  /**
   * The required fields left empty, worked out as the plan is edited (required-fields.ts): errors,
   * as the server refuses them; each replaces the saved error on the same block and field.
   */
  setEmptyFields(errors: readonly PlanIssue[]): void {
    this.emptyFields = errors;
    this.merge();
  }

  getIssues(): { errors: readonly PlanIssue[]; warnings: readonly PlanIssue[] } {
    return this.issues;
  }

  private merge(): void {
    const warnings = this.live ? [...this.saved.warnings.filter((issue) => !liveCodes.has(issue.code)), ...this.live] : this.saved.warnings;
    const live = new Set(this.emptyFields.map((issue) => `${issue.node_id}\u0000${issue.path}`));
    const errors = this.emptyFields.length === 0 ? this.saved.errors : [...this.saved.errors.filter((issue) => !live.has(`${issue.node_id}\u0000${issue.path}`)), ...this.emptyFields];
    this.issues = { errors, warnings };
    this.rebuild();
  }

  /** The nodes a test session went through and the node it is at. */
  setPath(nodeIds: readonly string[], current: string | undefined): void {
    this.path = nodeIds;
    this.current = current;
    this.rebuild();
  }

  /** The marks of a read-only canvas, by node id; they replace the previous ones. */
  setMarks(marks: Readonly<Record<string, NodeMark>>): void {
    this.marks = marks;
    this.rebuild();
  }

  private rebuild(): void {
    const next = new Map<string, { errors: PlanIssue[]; warnings: PlanIssue[]; visited: boolean; current: boolean; mark?: NodeMark }>();
    const entry = (id: string) => {
      let found = next.get(id);
      if (!found) next.set(id, (found = { errors: [], warnings: [], visited: false, current: false }));
      return found;
    };
    for (const issue of this.issues.errors) if (issue.node_id) entry(issue.node_id).errors.push(issue);
    for (const issue of this.issues.warnings) if (issue.node_id) entry(issue.node_id).warnings.push(issue);
    for (const id of this.path) entry(id).visited = true;
    if (this.current) entry(this.current).current = true;
    for (const [id, mark] of Object.entries(this.marks)) entry(id).mark = mark;
    // A node whose decoration did not change keeps its object, so its component does not render again.
    const kept = new Map<string, NodeDecoration>();
    for (const [id, decoration] of next) {
      const before = this.byNode.get(id);
      kept.set(id, before && sameDecoration(before, decoration) ? before : decoration);
    }
    this.byNode = kept;
    for (const listener of this.listeners) listener();
  }
}

function sameDecoration(a: NodeDecoration, b: NodeDecoration): boolean {
  return (
    a.visited === b.visited &&
    a.current === b.current &&
    sameMark(a.mark, b.mark) &&
    a.errors.length === b.errors.length &&
    a.warnings.length === b.warnings.length &&
    a.errors.every((issue, index) => issue.message === b.errors[index]!.message && issue.path === b.errors[index]!.path) &&
    a.warnings.every((issue, index) => issue.message === b.warnings[index]!.message && issue.path === b.warnings[index]!.path)
  );
}

/** Marks are compared by value: a caller that builds its record anew on each render redraws only the blocks whose mark changed. */
function sameMark(a: NodeMark | undefined, b: NodeMark | undefined): boolean {
  return a === b || (a !== undefined && b !== undefined && a.tone === b.tone && a.heat === b.heat && a.badge === b.badge && a.title === b.title);
}

export function useNodeDecoration(store: DecorationStore, nodeId: string): NodeDecoration {
  return useSyncExternalStore(store.subscribe, () => store.get(nodeId));
}

/**
 * The blocks' settings as the canvas draws them, apart from React Flow's nodes. A character typed
 * into a block's form changes that block's data only: handed to React Flow as a new node, it ran
 * every node's, edge's and handle's store selector (a plan of a thousand blocks, about 20 ms a
 * character). The editor keeps React Flow's nodes as they are when only data changed
 * (`FlowNodes`) and puts the data here, where the one block that shows it is subscribed by id.
 * The graph (graph-state.ts) stays what is edited, undone and saved.
 */
import type { Node } from '@xyflow/react';
import { useCallback, useSyncExternalStore } from 'react';
import { visibleExits } from './block-exits.ts';
import { unmeasuredShape } from './canvas-view.ts';
import type { GraphNode } from './graph-state.ts';

/** A block as React Flow holds it (BlockNode.tsx draws it): its data is kept here, apart. */
export type BlockFlowNode = Node<Record<string, unknown>, string>;

export class BlockDataStore {
  private byNode = new Map<string, Record<string, unknown>>();
  /** The names people gave blocks: drawn in the block's header, changed from the side panel like its data. */
  private labels = new Map<string, string | undefined>();
  private listeners = new Map<string, Set<() => void>>();

  constructor(nodes: readonly GraphNode[]) {
    for (const node of nodes) {
      this.byNode.set(node.id, node.data);
      this.labels.set(node.id, node.label);
    }
  }

  /** Takes the graph's nodes' data and names; only the blocks whose data or name changed are told. */
  update(nodes: readonly GraphNode[]): void {
    const changed: string[] = [];
    for (const node of nodes) {
      if (this.byNode.get(node.id) === node.data && this.labels.get(node.id) === node.label) continue;
      this.byNode.set(node.id, node.data);
      this.labels.set(node.id, node.label);
      changed.push(node.id);
    }
    for (const id of changed) for (const listener of this.listeners.get(id) ?? []) listener();
  }

  get(nodeId: string): Record<string, unknown> | undefined {
    return this.byNode.get(nodeId);
  }

  label(nodeId: string): string | undefined {
    return this.labels.get(nodeId);
  }

  subscribe(nodeId: string, listener: () => void): () => void {
    let listeners = this.listeners.get(nodeId);
    if (!listeners) this.listeners.set(nodeId, (listeners = new Set()));
    listeners.add(listener);
    return () => {
      listeners.delete(listener);
      if (listeners.size === 0) this.listeners.delete(nodeId);
    };
  }
}

const noSubscription = () => () => undefined;

function useBlockSubscription(store: BlockDataStore | undefined, nodeId: string) {
  return useCallback((listener: () => void) => (store ? store.subscribe(nodeId, listener) : noSubscription()), [store, nodeId]);
}

/**
 * A block's data: the store's when the canvas has one (the editor), else what React Flow passed
 * (read-only canvases, and a block added in this very render, before the store has it).
 */
export function useBlockData(store: BlockDataStore | undefined, nodeId: string, passed: Record<string, unknown>): Record<string, unknown> {
  const subscribe = useBlockSubscription(store, nodeId);
  const stored = useSyncExternalStore(subscribe, () => store?.get(nodeId));
  return stored ?? passed;
}

/** The name a person gave a block, if any, as the store has it (every canvas has one: the editor's, or a read-only canvas's own). */
export function useBlockLabel(store: BlockDataStore | undefined, nodeId: string): string | undefined {
  return useSyncExternalStore(useBlockSubscription(store, nodeId), () => store?.label(nodeId));
}

interface FlowNodeEntry {
  source: GraphNode;
  flow: BlockFlowNode;
}

/** React Flow's node for a block: a block not measured yet with its size and handles as they are taken to be (`unmeasuredShape`). */
function flowNode(node: GraphNode, selected: boolean): BlockFlowNode {
  if (node.measured !== undefined) return (selected ? { ...node, selected: true } : node) as BlockFlowNode;
  const exits = visibleExits(node.type, node.data, []).map((row) => row.exit);
  return { ...node, ...unmeasuredShape(exits, node.type !== 'start'), ...(selected && { selected: true }) } as BlockFlowNode;
}

/**
 * React Flow's nodes for the graph's: a block keeps its node object (and the list its array) while
 * only its data changes; a move, a measurement or a change of selection makes a new one.
 */
export class FlowNodes {
  private entries = new Map<string, FlowNodeEntry>();
  private list: BlockFlowNode[] = [];

  of(nodes: readonly GraphNode[], selected: ReadonlySet<string>): BlockFlowNode[] {
    const entries = new Map<string, FlowNodeEntry>();
    let same = nodes.length === this.list.length;
    const list = nodes.map((node, index) => {
      const isSelected = selected.has(node.id);
      const before = this.entries.get(node.id);
      const kept =
        before !== undefined &&
        before.source.type === node.type &&
        before.source.position === node.position &&
        before.source.measured === node.measured &&
        (before.flow.selected ?? false) === isSelected;
      const entry = kept ? before : { source: node, flow: flowNode(node, isSelected) };
      entries.set(node.id, entry);
      if (entry.flow !== this.list[index]) same = false;
      return entry.flow;
    });
    this.entries = entries;
    if (!same) this.list = list;
    return this.list;
  }
}

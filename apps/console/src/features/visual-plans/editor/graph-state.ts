/**
 * The plan being edited, with its undo and redo history. Pure functions over immutable values so
 * that an undo restores the very object that was saved (and the editor knows it is clean again),
 * and so that they are tested without a browser.
 *
 * Nodes are kept in the plan document's own shape (`{id, type, position, data}`), which is also the
 * shape React Flow takes: the block type is the React Flow node type. What React Flow adds
 * (`measured`) is kept beside, never saved. Selection lives outside the graph: selecting is no edit.
 */
import type { PlanEdge, PlanNode, PlanSettings } from '@voxplan/blocks/definitions';

export interface GraphNode extends PlanNode {
  data: Record<string, unknown>;
  /** React Flow's measurement of the rendered node; not part of the plan. */
  measured?: { width?: number; height?: number };
}

export interface Graph {
  nodes: readonly GraphNode[];
  edges: readonly PlanEdge[];
  settings: PlanSettings;
  /** Changes only with an edit: equal revisions are equal plans. */
  revision: number;
}

export interface EditorHistory {
  graph: Graph;
  past: readonly Graph[];
  future: readonly Graph[];
  /**
   * What the last edit was, so that the keys typed into one field become one undo step rather
   * than one per character.
   */
  lastEdit?: { key: string; at: number };
}

/** Undo keeps this many steps; older ones are forgotten. */
export const historyLimit = 200;
/** Edits of one field closer together than this are one undo step. */
export const typingMergeMs = 1_000;

let revisions = 0;
const nextRevision = () => ++revisions;

export function graphOf(content: { nodes: readonly PlanNode[]; edges: readonly PlanEdge[]; settings: PlanSettings }): Graph {
  return {
    nodes: content.nodes.map((node) => ({ id: node.id, type: node.type, ...(node.label !== undefined && { label: node.label }), position: node.position, data: (node.data ?? {}) as Record<string, unknown> })),
    edges: content.edges.map((edge) => ({ id: edge.id, source: edge.source, source_exit: edge.source_exit, target: edge.target })),
    settings: content.settings,
    revision: nextRevision(),
  };
}

/** The graph as the API stores it: nothing React Flow added. */
export function contentOf(graph: Graph): { nodes: PlanNode[]; edges: PlanEdge[]; settings: PlanSettings } {
  return {
    nodes: graph.nodes.map((node) => ({
      id: node.id,
      type: node.type,
      // A name cleared to spaces is no name: the document refuses an empty one.
      ...(node.label?.trim() && { label: node.label.trim() }),
      position: { x: Math.round(node.position.x), y: Math.round(node.position.y) },
      data: node.data,
    })),
    edges: graph.edges.map((edge) => ({ ...edge })),
    settings: graph.settings,
  };
}

export function startHistory(graph: Graph): EditorHistory {
  return { graph, past: [], future: [] };
}

type GraphChange = Partial<Omit<Graph, 'revision'>>;

/**
 * Records an edit: the current graph goes to the past, the future is dropped. With a `mergeKey`,
 * an edit of the same key soon after the previous one replaces it in place (typing).
 */
export function commit(history: EditorHistory, change: GraphChange, options: { mergeKey?: string; now?: number } = {}): EditorHistory {
  const graph: Graph = { ...history.graph, ...change, revision: nextRevision() };
  const now = options.now ?? Date.now();
  const merging = options.mergeKey !== undefined && history.lastEdit?.key === options.mergeKey && now - history.lastEdit.at < typingMergeMs && history.future.length === 0;
  const past = merging ? history.past : [...history.past, history.graph].slice(-historyLimit);
  return { graph, past, future: [], lastEdit: options.mergeKey === undefined ? undefined : { key: options.mergeKey, at: now } };
}

/** A change that is not an edit of the plan (a node measured, a drag in progress): no history, same revision. */
export function touch(history: EditorHistory, change: GraphChange): EditorHistory {
  return { ...history, graph: { ...history.graph, ...change } };
}

export function undo(history: EditorHistory): EditorHistory {
  const previous = history.past.at(-1);
  if (!previous) return history;
  return { graph: previous, past: history.past.slice(0, -1), future: [history.graph, ...history.future] };
}

export function redo(history: EditorHistory): EditorHistory {
  const next = history.future[0];
  if (!next) return history;
  return { graph: next, past: [...history.past, history.graph], future: history.future.slice(1) };
}

/** Edges whose ends are both among the nodes kept. */
function edgesBetween(edges: readonly PlanEdge[], nodeIds: ReadonlySet<string>): PlanEdge[] {
  return edges.filter((edge) => nodeIds.has(edge.source) && nodeIds.has(edge.target));
}

/** Removes nodes (never the start block: a plan has exactly one) and every edge that touches them. */
export function removeElements(graph: Graph, nodeIds: ReadonlySet<string>, edgeIds: ReadonlySet<string>): GraphChange | undefined {
  const doomed = new Set([...nodeIds].filter((id) => graph.nodes.find((node) => node.id === id)?.type !== 'start'));
  if (doomed.size === 0 && edgeIds.size === 0) return undefined;
  const nodes = graph.nodes.filter((node) => !doomed.has(node.id));
  const edges = graph.edges.filter((edge) => !edgeIds.has(edge.id) && !doomed.has(edge.source) && !doomed.has(edge.target));
  if (nodes.length === graph.nodes.length && edges.length === graph.edges.length) return undefined;
  return { nodes, edges };
}

/** A new id for a node or an edge, unique in the plan and within the document's id rules. */
export function newId(prefix: string, taken: ReadonlySet<string>): string {
  for (;;) {
    const id = `${prefix}-${Math.random().toString(36).slice(2, 8)}`;
    if (!taken.has(id)) return id;
  }
}

export function idsOf(graph: Graph): Set<string> {
  return new Set([...graph.nodes.map((node) => node.id), ...graph.edges.map((edge) => edge.id)]);
}

/**
 * Connects an exit to a block. An exit leads to one block only (blocks.md): connecting it again
 * replaces its edge. A block is not connected to itself through the exit it was dragged from twice.
 */
export function connect(graph: Graph, link: { source: string; sourceExit: string; target: string }, replacing?: string): GraphChange | undefined {
  if (link.source === link.target && graph.nodes.find((node) => node.id === link.source)?.type === 'start') return undefined;
  const kept = graph.edges.filter((edge) => edge.id !== replacing && !(edge.source === link.source && edge.source_exit === link.sourceExit));
  const id = newId('e', idsOf(graph));
  return { edges: [...kept, { id, source: link.source, source_exit: link.sourceExit, target: link.target }] };
}

/** What a copy holds: the chosen blocks and the edges between them, in the plan file's shape. */
export interface Fragment {
  nodes: PlanNode[];
  edges: PlanEdge[];
}

export function fragmentOf(graph: Graph, nodeIds: ReadonlySet<string>): Fragment {
  const nodes = graph.nodes.filter((node) => nodeIds.has(node.id) && node.type !== 'start');
  const kept = new Set(nodes.map((node) => node.id));
  return contentOf({ ...graph, nodes, edges: edgesBetween(graph.edges, kept) });
}

/**
 * Adds a copied fragment with new ids, moved by `offset` (or so that its top-left corner lands at
 * `at`). A start block is never pasted. Answers the change and the new nodes' ids (to select them).
 */
export function paste(graph: Graph, fragment: Fragment, placement: { offset?: { x: number; y: number }; at?: { x: number; y: number } }): { change: GraphChange; nodeIds: string[] } | undefined {
  const nodes = fragment.nodes.filter((node) => node.type !== 'start');
  if (nodes.length === 0) return undefined;
  const taken = idsOf(graph);
  const renamed = new Map<string, string>();
  for (const node of nodes) {
    const id = newId(node.type.replaceAll('_', '-'), taken);
    taken.add(id);
    renamed.set(node.id, id);
  }
  const left = Math.min(...nodes.map((node) => node.position.x));
  const top = Math.min(...nodes.map((node) => node.position.y));
  const shift = placement.at ? { x: placement.at.x - left, y: placement.at.y - top } : (placement.offset ?? { x: 40, y: 40 });
  const added: GraphNode[] = nodes.map((node) => ({
    id: renamed.get(node.id)!,
    type: node.type,
    ...(node.label !== undefined && { label: node.label }),
    position: { x: node.position.x + shift.x, y: node.position.y + shift.y },
    data: structuredClone((node.data ?? {}) as Record<string, unknown>),
  }));
  const edges = fragment.edges
    .filter((edge) => renamed.has(edge.source) && renamed.has(edge.target))
    .map((edge) => {
      const id = newId('e', taken);
      taken.add(id);
      return { id, source: renamed.get(edge.source)!, source_exit: edge.source_exit, target: renamed.get(edge.target)! };
    });
  return { change: { nodes: [...graph.nodes, ...added], edges: [...graph.edges, ...edges] }, nodeIds: added.map((node) => node.id) };
}

/**
 * Reads what the clipboard holds as blocks: a fragment this editor copied, or a whole plan file
 * (what export writes). Anything else is not ours to paste.
 */
export function readFragment(text: string): Fragment | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof parsed !== 'object' || parsed === null) return undefined;
  const { nodes, edges } = parsed as { nodes?: unknown; edges?: unknown };
  if (!Array.isArray(nodes)) return undefined;
  const validNodes = nodes.filter(
    (node): node is PlanNode =>
      typeof node === 'object' &&
      node !== null &&
      typeof (node as PlanNode).id === 'string' &&
      typeof (node as PlanNode).type === 'string' &&
      typeof (node as PlanNode).position?.x === 'number' &&
      typeof (node as PlanNode).position?.y === 'number',
  );
  const validEdges = (Array.isArray(edges) ? edges : []).filter(
    (edge): edge is PlanEdge =>
      typeof edge === 'object' &&
      edge !== null &&
      ['id', 'source', 'source_exit', 'target'].every((key) => typeof (edge as Record<string, unknown>)[key] === 'string'),
  );
  return validNodes.length > 0 ? { nodes: validNodes, edges: validEdges } : undefined;
}

const variableNamePattern = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * The variables the plan's blocks set, for completion in template fields: the names in their lists
 * of rows (a variable block's assignments, a speech detection's variables, an HTTP request's saves).
 */
export function assignedVariables(graph: Graph): string[] {
  const names = new Set<string>();
  for (const node of graph.nodes) {
    for (const value of Object.values(node.data)) {
      if (!Array.isArray(value)) continue;
      for (const row of value) {
        if (typeof row !== 'object' || row === null) continue;
        const name = (row as { name?: unknown; variable?: unknown }).name ?? (row as { variable?: unknown }).variable;
        if (typeof name === 'string' && variableNamePattern.test(name)) names.add(name);
      }
    }
  }
  return [...names].sort();
}

/** The size a block is taken to have before React Flow has measured it. */
const unmeasured = { width: 200, height: 90 };
const gap = 20;

/** The first place at or below `wanted` where a new block overlaps none of the plan's blocks. */
export function freeSpotNear(graph: Graph, wanted: { x: number; y: number }): { x: number; y: number } {
  const spot = { ...wanted };
  const overlaps = () =>
    graph.nodes.some((node) => {
      const width = node.measured?.width ?? unmeasured.width;
      const height = node.measured?.height ?? unmeasured.height;
      return spot.x < node.position.x + width + gap && node.position.x < spot.x + unmeasured.width + gap && spot.y < node.position.y + height + gap && node.position.y < spot.y + unmeasured.height + gap;
    });
  for (let attempt = 0; attempt < graph.nodes.length + 1 && overlaps(); attempt++) spot.y += unmeasured.height + gap;
  return spot;
}

/**
 * A block's data with its chat text following its voice text: the plan setting
 * `sync_with_voice_text` (blocks.md) keeps the two alike while the user edits.
 */
export function withChatFollowingVoice(data: Record<string, unknown>): Record<string, unknown> {
  if (typeof data.voice_text !== 'string' || !('chat_text' in data) || data.chat_text === data.voice_text) return data;
  return { ...data, chat_text: data.voice_text };
}

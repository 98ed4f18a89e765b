/**
 * The edges of a plan zoomed out past `detailZoom` (canvas-view.ts), drawn as a few SVG paths
 * (`overviewCell`) instead of React Flow's edges. Two thousand edge components, and the handles of
 * a thousand plainly drawn blocks, were most of what a large plan cost the browser to open and to
 * pan or zoom (bench/README.md): at that zoom an edge is a line to see, not a thing to click, so
 * below it the canvas draws the lines here, blocks drawn plainly have no handles, and connecting or
 * picking an edge waits for the zoom that shows the blocks' texts. The selected block, drawn in full, keeps its handles.
 */
import { type Edge, type InternalNode, type ReactFlowState, useStore, ViewportPortal } from '@xyflow/react';
import { useMemo } from 'react';
import { visibleExits } from './block-exits.ts';
import { entryY, plainExitY, unmeasuredWidth, useZoomedOut } from './canvas-view.ts';
import classes from './editor.module.css';

const noEdges: Edge[] = [];

/**
 * The edges React Flow draws itself: none while zoomed out (the overview draws them), else all.
 * Call it inside the canvas's ReactFlowProvider.
 */
export function useFlowEdges<E extends Edge>(edges: E[]): E[] {
  return useZoomedOut() ? (noEdges as E[]) : edges;
}

interface Point {
  x: number;
  y: number;
}

const round = (value: number) => Math.round(value * 10) / 10;

/**
 * Where an edge leaves its block: the handle React Flow measured on a block drawn in full, else the
 * plain block's exit row. `rows` gives a block's exit rows, worked out once per block.
 */
function exitPoint(node: InternalNode, exit: string, rows: (node: InternalNode) => readonly string[]): Point {
  const { x, y } = node.internals.positionAbsolute;
  const width = node.measured.width ?? unmeasuredWidth;
  const handle = node.selected ? node.internals.handleBounds?.source?.find((bounds) => bounds.id === exit) : undefined;
  if (handle) return { x: x + handle.x + handle.width / 2, y: y + handle.y + handle.height / 2 };
  return { x: x + width, y: y + plainExitY(Math.max(0, rows(node).indexOf(exit))) };
}

const selectNodes = (state: ReactFlowState) => state.nodeLookup;

/*
 * React Flow fills and updates its node lookup in place: the map stays the same object when the
 * blocks are first adopted and when they are measured, so selecting the map alone drew the lines
 * of an empty lookup when the canvas opened, and no more until the edges changed (issue 36). What
 * the lines are drawn from, folded into one number, changes with it.
 */
const selectNodesDrawn = (state: ReactFlowState): number => {
  let hash = state.nodeLookup.size;
  for (const node of state.nodeLookup.values()) {
    const { x, y } = node.internals.positionAbsolute;
    hash = (Math.imul(hash, 31) + Math.round(x * 8)) | 0;
    hash = (Math.imul(hash, 31) + Math.round(y * 8)) | 0;
    hash = (Math.imul(hash, 31) + Math.round((node.measured.width ?? 0) * 8)) | 0;
    hash = (Math.imul(hash, 31) + (node.selected ? 1 : 0)) | 0;
  }
  return hash;
};

/**
 * The side, in the plan's units, of the squares the overview's lines are grouped by: the lines from
 * one square to another make one path. The browser paints the canvas in tiles, and a tile draws the
 * paths whose bounds cross it: as one path, every line of the plan was drawn again for every tile at
 * every step of a zoom, most of what panning and zooming a large plan cost after its blocks
 * (bench/README.md). Grouped by both ends, a long line does not stretch the bounds of the short ones
 * beside it. A square holds a few blocks; the bench's plan of a thousand makes a few hundred paths.
 */
export const overviewCell = 1000;

/** The overview's lines: the plain ones, a path's worth per pair of the plan's squares they join, and, apart, those of the path a test run or a report lights up. */
export function overviewPaths(edges: readonly Edge[], nodes: ReadonlyMap<string, InternalNode>): { plain: string[]; lit: string; count: number; litCount: number } {
  const connected = new Map<string, string[]>();
  for (const edge of edges) {
    const exits = connected.get(edge.source) ?? [];
    exits.push(edge.sourceHandle ?? '');
    connected.set(edge.source, exits);
  }
  const exitRows = new Map<string, readonly string[]>();
  const rows = (node: InternalNode) => {
    let shown = exitRows.get(node.id);
    if (!shown) exitRows.set(node.id, (shown = visibleExits(node.type ?? '', node.data, connected.get(node.id) ?? []).map((row) => row.exit)));
    return shown;
  };
  const plain = new Map<string, string>();
  let lit = '';
  let count = 0;
  let litCount = 0;
  for (const edge of edges) {
    const source = nodes.get(edge.source);
    const target = nodes.get(edge.target);
    if (!source || !target) continue;
    const from = exitPoint(source, edge.sourceHandle ?? '', rows);
    const to = { x: target.internals.positionAbsolute.x, y: target.internals.positionAbsolute.y + entryY };
    // As React Flow's default edge: a curve leaving to the right and entering from the left.
    const reach = Math.max(40, Math.abs(to.x - from.x) / 2);
    const segment = `M${round(from.x)},${round(from.y)}C${round(from.x + reach)},${round(from.y)} ${round(to.x - reach)},${round(to.y)} ${round(to.x)},${round(to.y)}`;
    if (edge.animated) {
      lit += segment;
      litCount++;
    } else {
      const cell = `${Math.floor(from.x / overviewCell)},${Math.floor(from.y / overviewCell)} ${Math.floor(to.x / overviewCell)},${Math.floor(to.y / overviewCell)}`;
      plain.set(cell, (plain.get(cell) ?? '') + segment);
    }
    count++;
  }
  return { plain: [...plain.values()], lit, count, litCount };
}

/** Goes inside `<ReactFlow>`, given every edge of the plan; draws nothing while the canvas shows blocks in full. */
export function OverviewEdges({ edges }: { edges: readonly Edge[] }) {
  const zoomedOut = useZoomedOut();
  const nodes = useStore(selectNodes);
  const drawn = useStore(selectNodesDrawn);
  // `drawn` (a number, never null) stands for the lookup's content, which `nodes`, the same map throughout, does not tell.
  const paths = useMemo(() => (zoomedOut && drawn !== null ? overviewPaths(edges, nodes) : undefined), [zoomedOut, edges, nodes, drawn]);
  if (!paths) return null;
  return (
    <ViewportPortal>
      <svg className={classes.overviewEdges} data-testid="overview-edges" data-edge-count={paths.count} data-lit-count={paths.litCount} aria-hidden>
        {paths.plain.map((d, index) => (
          // A group's lines change with the blocks they leave; its place in the list is key enough.
          <path key={index} className={classes.overviewEdge} d={d} />
        ))}
        {paths.lit && <path className={classes.overviewLitEdge} d={paths.lit} />}
      </svg>
    </ViewportPortal>
  );
}

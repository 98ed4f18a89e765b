/**
 * How much of a plan the canvas draws, and where it opens. A thousand blocks drawn in full (summary,
 * exit labels) at a zoom where none of that text can be read cost the browser most of its time
 * opening and moving a large plan, so below `detailZoom` a block is drawn plainly: its colour, icon,
 * name and a row per exit, without handles (overview-edges.tsx draws the edges then), and below
 * `outlineZoom` as its coloured outline alone, of the same size. The selected block, whose form is
 * open, stays in full.
 */
import { blockDescription } from '@voxplan/blocks/editor/registry';
import { getViewportForBounds, type NodeHandle, Position, type ReactFlowState, type Rect, useStore, type Viewport } from '@xyflow/react';
import type { GraphNode } from './graph-state.ts';

/**
 * Below this zoom blocks are drawn plainly: their summary (12 px at 100 %) would be under 5.5 px
 * on screen, which nobody reads.
 */
export const detailZoom = 0.45;

const zoomedOut = (state: ReactFlowState) => state.transform[2] < detailZoom;

/** Below this zoom a block's name (14 px at 100 %) is under 3 px on screen: a block is its coloured outline. */
export const outlineZoom = 0.2;

const farOut = (state: ReactFlowState) => state.transform[2] < outlineZoom;

/** Whether the canvas is zoomed out past `outlineZoom`; a boolean, as `useZoomedOut`. */
export function useFarOut(): boolean {
  return useStore(farOut);
}

/**
 * Whether the canvas is zoomed out past `detailZoom`. A boolean, so that a block renders again
 * when the threshold is crossed, not on every step of a zoom.
 */
export function useZoomedOut(): boolean {
  return useStore(zoomedOut);
}

/** How far the canvases fit a plan: never enlarged past 100 % (opening-view.ts, canvas-opening.tsx). */
export const fitMaxZoom = 1;
export const canvasMinZoom = 0.05;

/*
 * A plainly drawn block's size, from editor.module.css: 3 px of coloured top border, the header
 * (6 + 2 px of padding around a 14 px line of 1.45), then the exits' rows (a 1 px rule, 2 px of
 * padding above and below, 18.8 px a row) and the 1 px bottom border. Blocks are at least 180 px
 * wide; most names fit in that.
 */
const plainWidth = 180;
const plainHeaderHeight = 3 + 8 + 20.3 + 1;
const exitsChrome = 1 + 4;
const exitRowHeight = 18.8;

/** Where a plainly drawn block's exit row `index` has its middle, from the block's top (the header, the rule, the padding, the rows above). */
export const plainExitY = (index: number): number => plainHeaderHeight + 1 + 2 + (index + 0.5) * exitRowHeight;

/** Where every block's entry (its target handle, editor.module.css `.targetHandle`) has its middle, from the block's top. */
export const entryY = 16;

/** What a block drawn in full adds to its plain outline's height: up to two lines of summary (12 px of 1.45) and their padding. */
export const fullSummaryHeight = 2 * 17.4 + 8;

/** How far right of its block an exit's "+" and "end here" reach (editor.module.css `.exitEnd`). */
export const exitButtonsReach = 50;

/** A block's width when it has not been measured yet: the least a block is. */
export const unmeasuredWidth = plainWidth;

/** The handles' size (editor.module.css `.targetHandle`, `.sourceHandle`): where an edge meets one is its middle. */
const handleSize = 10;

/**
 * What React Flow is told of a block it has not measured: its size at most (drawn in full, two
 * lines of summary) and where its handles stand. React Flow draws every block it has not measured,
 * in view or not, to measure it: a plan of a thousand blocks opened on its start drew a thousand
 * hidden blocks first, 1 to 2.5 s of script, to show fifty (bench/README.md). Told this, it draws
 * the blocks in view alone, and the edges to blocks out of view end where those blocks' handles
 * are taken to be, until they come into view and are measured (an estimate: a summary of one line
 * or none puts an exit a line or two higher).
 */
export function unmeasuredShape(exits: readonly string[], entry: boolean): { initialWidth: number; initialHeight: number; handles: NodeHandle[] } {
  const rows = exits.length > 0 ? exitsChrome + exits.length * exitRowHeight : 0;
  const handles: NodeHandle[] = exits.map((exit, index) => ({
    id: exit,
    type: 'source',
    position: Position.Right,
    x: plainWidth - handleSize / 2,
    y: plainExitY(index) + fullSummaryHeight - handleSize / 2,
    width: handleSize,
    height: handleSize,
  }));
  if (entry) handles.push({ id: null, type: 'target', position: Position.Left, x: -handleSize / 2, y: entryY - handleSize / 2, width: handleSize, height: handleSize });
  return { initialWidth: plainWidth, initialHeight: plainHeaderHeight + fullSummaryHeight + rows, handles };
}

type PlanShape = { nodes: readonly Pick<GraphNode, 'id' | 'type' | 'position' | 'measured'>[]; edges: readonly { source: string; source_exit: string }[] };

/** The rectangle the plan's blocks cover, from their measured sizes or, unmeasured, their plain ones. */
export function planBounds(graph: PlanShape): Rect | undefined {
  if (graph.nodes.length === 0) return undefined;
  const leaving = new Map<string, Set<string>>();
  for (const edge of graph.edges) {
    let exits = leaving.get(edge.source);
    if (!exits) leaving.set(edge.source, (exits = new Set()));
    exits.add(edge.source_exit);
  }
  let left = Number.POSITIVE_INFINITY;
  let top = Number.POSITIVE_INFINITY;
  let right = Number.NEGATIVE_INFINITY;
  let bottom = Number.NEGATIVE_INFINITY;
  for (const node of graph.nodes) {
    const exits = Math.max(blockDescription(node.type)?.staticExits.length ?? 0, leaving.get(node.id)?.size ?? 0);
    const nodeWidth = node.measured?.width ?? plainWidth;
    const nodeHeight = node.measured?.height ?? plainHeaderHeight + (exits > 0 ? exitsChrome + exits * exitRowHeight : 0);
    left = Math.min(left, node.position.x);
    top = Math.min(top, node.position.y);
    right = Math.max(right, node.position.x + nodeWidth);
    bottom = Math.max(bottom, node.position.y + nodeHeight);
  }
  return { x: left, y: top, width: right - left, height: bottom - top };
}

/**
 * The least zoom the editor zooms out to by itself when a block is added: blocks are still drawn
 * in full (above `detailZoom`), their names and summaries read, their exits' "+" there to click.
 */
export const readableZoom = 0.5;

/**
 * What the canvas's own controls cover from each side, in screen px, so that a view the editor
 * chooses puts no block under them: the fold buttons in the top corners, the zoom controls down
 * the left, the minimap (200 × 150 and its 15 px margin) in the bottom right when it is shown.
 */
export function chromeInsets(minimap: boolean): { top: number; right: number; bottom: number; left: number } {
  return { top: 40, right: 40, bottom: minimap ? 175 : 40, left: 56 };
}

/**
 * Where the view goes after a block is added (issue 31: the plan being built stays reachable):
 * nowhere while the whole plan is still in view, past the canvas's controls; else the whole plan
 * fitted, when that leaves it readable (`readableZoom`, and never closer than the person had it);
 * else, the plan too big to read whole, the least pan (zoomed out to `readableZoom` at most) that
 * brings the block just added into view. `undefined` when the view stays.
 */
export function viewAfterAdd(planRect: Rect, addedRect: Rect, view: Viewport, width: number, height: number, minimap: boolean): Viewport | undefined {
  const inset = chromeInsets(minimap);
  // An exit's "+" and "end here" stand right of its block: they are part of what must be in reach.
  const plan = { ...planRect, width: planRect.width + exitButtonsReach };
  const added = { ...addedRect, width: addedRect.width + exitButtonsReach };
  const inView = (rect: Rect, at: Viewport) =>
    rect.x * at.zoom + at.x >= inset.left &&
    rect.y * at.zoom + at.y >= inset.top &&
    (rect.x + rect.width) * at.zoom + at.x <= width - inset.right &&
    (rect.y + rect.height) * at.zoom + at.y <= height - inset.bottom;
  if (inView(plan, view)) return undefined;
  const padding = { top: `${inset.top}px`, right: `${inset.right}px`, bottom: `${inset.bottom}px`, left: `${inset.left}px` } as const;
  const fitted = getViewportForBounds(plan, width, height, canvasMinZoom, Math.min(fitMaxZoom, Math.max(view.zoom, readableZoom)), padding);
  if (fitted.zoom >= readableZoom) return fitted;
  // Too big to read whole: from the view the person has (zoomed out to readable, about its middle), the least move that shows the block.
  const zoom = Math.min(view.zoom, readableZoom);
  const scale = zoom / view.zoom;
  let x = width / 2 - (width / 2 - view.x) * scale;
  let y = height / 2 - (height / 2 - view.y) * scale;
  const [left, top] = [added.x * zoom + x, added.y * zoom + y];
  const [right, bottom] = [left + added.width * zoom, top + added.height * zoom];
  // A block wider or taller than the room left shows its top left corner, where its name is.
  if (right > width - inset.right) x -= Math.min(right - (width - inset.right), left - inset.left);
  if (left < inset.left) x += inset.left - left;
  if (bottom > height - inset.bottom) y -= Math.min(bottom - (height - inset.bottom), top - inset.top);
  if (top < inset.top) y += inset.top - top;
  const moved = { x, y, zoom };
  return moved.x === view.x && moved.y === view.y && moved.zoom === view.zoom ? undefined : moved;
}

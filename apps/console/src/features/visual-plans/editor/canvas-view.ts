/**
 * How much of a plan the canvas draws, and where it opens. A thousand blocks drawn in full (summary,
 * exit labels) at a zoom where none of that text can be read cost the browser most of its time
 * opening and moving a large plan, so below `detailZoom` a block is drawn plainly: its colour, icon,
 * name and a row per exit, without handles (overview-edges.tsx draws the edges then), and below
 * `outlineZoom` as its coloured outline alone, of the same size. The selected block, whose form is
 * open, stays in full.
 */
import { blockDescription } from '@voxplan/blocks/editor/registry';
import { getViewportForBounds, type ReactFlowState, useStore, type Viewport } from '@xyflow/react';
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

/** How the canvases fit a plan (`canvasDefaults`, `openingViewport`): padding around it, never enlarged past 100 %. */
export const fitPadding = 0.1;
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

/** A block's width when it has not been measured yet: the least a block is. */
export const unmeasuredWidth = plainWidth;

/**
 * The view that fits the plan, from its blocks' positions and their plain sizes, before anything
 * is drawn: a large plan opens zoomed out, where blocks are drawn plainly, so this is already the
 * view React Flow's fit would give after measuring them, and the blocks are drawn once.
 */
export function openingViewport(
  graph: { nodes: readonly Pick<GraphNode, 'id' | 'type' | 'position' | 'measured'>[]; edges: readonly { source: string; source_exit: string }[] },
  width: number,
  height: number,
): Viewport {
  if (graph.nodes.length === 0) return { x: 0, y: 0, zoom: fitMaxZoom };
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
  return getViewportForBounds({ x: left, y: top, width: right - left, height: bottom - top }, width, height, canvasMinZoom, fitMaxZoom, fitPadding);
}

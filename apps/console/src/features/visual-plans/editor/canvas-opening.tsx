/**
 * How the canvases put a plan in view (opening-view.ts): worked out from the stored positions
 * before the first draw, then once more when React Flow has measured the blocks it drew, and on
 * the fit buttons. React Flow's own `fitView` is not used: it fits the whole plan however small
 * that makes it, and under the zoom buttons.
 */
import { type FitViewOptions, type Node, type ReactFlowInstance, type ReactFlowState, type Rect, useReactFlow, useStore, useStoreApi, type Viewport } from '@xyflow/react';
import { useEffect, useRef } from 'react';
import { canvasMinZoom, fitMaxZoom, planBounds } from './canvas-view.ts';
import classes from './editor.module.css';
import { type Insets, openingView } from './opening-view.ts';

type Block = { id: string; type: string; position: { x: number; y: number }; measured?: { width?: number; height?: number } };
type Link = { source: string; source_exit: string };

/** What every plan canvas shares: only what is in view drawn, zooming out as far as a person wants, lines that stand out in either scheme. */
export const canvasDefaults = { minZoom: canvasMinZoom, onlyRenderVisibleElements: true, className: classes.flow } as const;

/** A fit the person asks for (the fit buttons): the whole plan, however small, clear of the controls, at 100 % at most. */
export function fitOptions<N extends Node = Node>(inset: Insets, duration?: number): FitViewOptions<N> {
  return {
    maxZoom: fitMaxZoom,
    minZoom: canvasMinZoom,
    padding: { top: `${inset.top}px`, right: `${inset.right}px`, bottom: `${inset.bottom}px`, left: `${inset.left}px` },
    ...(duration !== undefined && { duration }),
  };
}

/** The view a plan opens with on a canvas of that size (opening-view.ts), from its blocks as they are known. */
export function planView(nodes: readonly Block[], edges: readonly Link[], width: number, height: number, inset: Insets, minZoom?: number): Viewport {
  const start = nodes.find((node) => node.type === 'start');
  const startRect: Rect | undefined = start ? planBounds({ nodes: [start], edges }) : undefined;
  return openingView(planBounds({ nodes, edges }), startRect, width, height, inset, minZoom);
}

type FlowStore<N extends Node = Node> = ReturnType<typeof useStoreApi<N>>;

/** The blocks React Flow holds, with their positions and sizes as measured (if they are). */
function storeBlocks<N extends Node>(store: FlowStore<N>): Block[] {
  return [...store.getState().nodeLookup.values()].map((node) => ({ id: node.id, type: node.type ?? '', position: node.internals.positionAbsolute, measured: node.measured }));
}

/**
 * The editor's fit (its toolbar's button, the zoom controls' and after a layout): the whole plan,
 * however small, clear of the controls, from the blocks' measured sizes or, for the blocks never
 * drawn, the sizes they are taken to have. React Flow's own `fitView` waits until every block is
 * measured, and the editor draws a block only once it comes into view (canvas-view.ts
 * `unmeasuredShape`): the fit the zoom controls queue in React Flow is dropped for this one.
 */
export function fitWholePlan<N extends Node>(flow: Pick<ReactFlowInstance<N>, 'setViewport'>, store: FlowStore<N>, edges: readonly Link[], inset: Insets, duration?: number): void {
  store.setState({ fitViewQueued: false, fitViewOptions: undefined });
  const { width, height } = store.getState();
  void flow.setViewport(planView(storeBlocks(store), edges, width, height, inset, canvasMinZoom), duration === undefined ? undefined : { duration });
}

const anyMeasured = (state: ReactFlowState): boolean => {
  for (const node of state.nodeLookup.values()) if (node.measured.width) return true;
  return false;
};

/**
 * Inside `<ReactFlow>`: once the blocks in view are first measured (React Flow measures those it
 * drew in one pass), puts the plan in view again from their real sizes; the first view took plain
 * blocks' sizes, and blocks drawn in full are taller. Once only: the view is the person's after.
 */
export function FitOnceMeasured({ edges, inset, minZoom }: { edges: readonly Link[]; inset: Insets; minZoom?: number }) {
  const flow = useReactFlow();
  const store = useStoreApi();
  const measured = useStore(anyMeasured);
  const done = useRef(false);
  useEffect(() => {
    if (!measured || done.current) return;
    done.current = true;
    const { width, height } = store.getState();
    void flow.setViewport(planView(storeBlocks(store), edges, width, height, inset, minZoom));
  }, [measured, store, flow, edges, inset, minZoom]);
  return null;
}

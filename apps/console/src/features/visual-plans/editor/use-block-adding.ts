import { blockDescription } from '@voxplan/blocks/editor/registry';
import type { FinalConnectionState, ReactFlowInstance } from '@xyflow/react';
import { type RefObject, useCallback, useMemo, useRef, useState } from 'react';
import type { BlockFlowNode } from './BlockNode.tsx';
import type { PickerSpot } from './BlockPicker.tsx';
import { initialDataOf } from './block-look.tsx';
import { fullSummaryHeight, planBounds, viewAfterAdd } from './canvas-view.ts';
import type { EditorActions } from './editor-context.tsx';
import type { SetHistory, SetSelection } from './editor-selection.ts';
import { commit, connect, freeSpotNear, type Graph, type GraphNode, idsOf, newId, removeElements } from './graph-state.ts';
import { blockDragType } from './Palette.tsx';

/** An exit waiting for the block the user picks to follow it: where the picker shows, where the block goes. */
export interface PendingLink {
  source: string;
  exit: string;
  spot: PickerSpot;
  /** The new block's top-left corner, in the plan's coordinates. */
  position: { x: number; y: number };
}

/** A new block's entry handle sits this far below its top (editor.module.css `.targetHandle`). */
const entryOffset = 16;

/**
 * Adding blocks: from the palette (a click or a drop), following an exit (a line dropped on empty
 * canvas, an exit's "+" or "end here"), and the view that follows what was added.
 */
export function useBlockAdding(
  flow: ReactFlowInstance<BlockFlowNode>,
  canvasRef: RefObject<HTMLDivElement | null>,
  readOnly: boolean,
  setHistory: SetHistory,
  setSelection: SetSelection,
) {
  const selectOnly = useCallback((nodeIds: readonly string[]) => setSelection({ nodes: new Set(nodeIds), edges: new Set() }), [setSelection]);

  /** Where added and pasted blocks go: around the middle of what the user is looking at. */
  const viewCentre = useCallback(() => {
    const bounds = canvasRef.current?.getBoundingClientRect();
    const centre = flow.screenToFlowPosition(bounds ? { x: bounds.left + bounds.width / 2, y: bounds.top + bounds.height / 2 } : { x: 0, y: 0 });
    return { x: Math.round(centre.x - 90), y: Math.round(centre.y - 30) };
  }, [flow, canvasRef]);

  /**
   * After a block is added, keeps the plan being built in reach (canvas-view.ts `viewAfterAdd`):
   * the view glides to fit the whole plan when it no longer fits, or, too big to read whole, to the
   * block just added. Only on an add: a view the person pans or zooms by hand is left where they put it.
   */
  const pendingFollow = useRef<{ plan: Graph; node: GraphNode } | null>(null);
  const followAdd = useCallback(
    (plan: Graph, added: GraphNode) => {
      const canvas = canvasRef.current;
      const bounds = planBounds(plan);
      const spot = planBounds({ nodes: [added], edges: [] });
      if (!canvas || !bounds || !spot) return;
      const { width, height } = canvas.getBoundingClientRect();
      // The minimap is drawn (shown, and not hidden by a narrow screen's style).
      const minimap = (canvas.querySelector('.react-flow__minimap')?.getClientRects().length ?? 0) > 0;
      // Drawn in full, a new block is taller than its plain outline by its summary's lines.
      const next = viewAfterAdd(bounds, { ...spot, height: spot.height + fullSummaryHeight }, flow.getViewport(), width, height, minimap);
      if (next) void flow.setViewport(next, { duration: 300 });
    },
    [flow, canvasRef],
  );

  /**
   * Adds a block: at the view's centre, where it was dropped (`at`, its centre), or following an
   * exit (`link`), connected to it in the same undo step; a ready block brings its `preset` data
   * (the destination it calls).
   */
  const addBlock = useCallback(
    (type: string, at?: { x: number; y: number }, link?: PendingLink, preset?: Record<string, unknown>) => {
      if (readOnly || !blockDescription(type)) return;
      const wanted = link ? link.position : at ? { x: Math.round(at.x - 90), y: Math.round(at.y - 30) } : viewCentre();
      void initialDataOf(type).then((initial) => ({ ...initial, ...preset })).then((data) =>
        setHistory((current) => {
          const id = newId(type.replaceAll('_', '-'), idsOf(current.graph));
          // A block clicked in twice does not land on the first one.
          const position = at ? wanted : freeSpotNear(current.graph, wanted);
          const node: GraphNode = { id, type, position, data };
          const withNode = { ...current.graph, nodes: [...current.graph.nodes, node] };
          const connected = link ? connect(withNode, { source: link.source, sourceExit: link.exit, target: id }) : undefined;
          queueMicrotask(() => {
            // The view follows once the selection has opened the side panel: the canvas it fits is the narrower one.
            pendingFollow.current = { plan: withNode, node };
            selectOnly([id]);
          });
          return commit(current, { nodes: withNode.nodes, ...connected });
        }),
      );
    },
    [readOnly, selectOnly, viewCentre, setHistory],
  );

  /* Following an exit with a new block: a line dropped on empty canvas, or an exit's "+" */

  const [pendingLink, setPendingLink] = useState<PendingLink>();
  const closePicker = useCallback(() => setPendingLink(undefined), []);
  const spotOf = useCallback(
    (client: { x: number; y: number }): PickerSpot => {
      const bounds = canvasRef.current?.getBoundingClientRect();
      return { left: client.x - (bounds?.left ?? 0), top: client.y - (bounds?.top ?? 0) };
    },
    [canvasRef],
  );
  const onConnectEnd = useCallback(
    (event: MouseEvent | TouchEvent, state: FinalConnectionState) => {
      if (readOnly || state.isValid || !state.fromNode || state.fromHandle?.type !== 'source') return;
      const point = 'changedTouches' in event ? event.changedTouches[0] : event;
      if (!point) return;
      const client = { x: point.clientX, y: point.clientY };
      // Only a drop on the empty canvas: one on a block's body is a missed handle, not a wish for a new block.
      const under = document.elementFromPoint(client.x, client.y);
      if (!under || !canvasRef.current?.contains(under) || under.closest('.react-flow__node, .react-flow__controls, .react-flow__minimap')) return;
      const at = flow.screenToFlowPosition(client);
      setPendingLink({ source: state.fromNode.id, exit: state.fromHandle.id ?? '', spot: spotOf(client), position: { x: Math.round(at.x), y: Math.round(at.y - entryOffset) } });
    },
    [flow, readOnly, spotOf, canvasRef],
  );
  /** A block following an exit lands right of the block, level with the exit (`client`, on the screen). */
  const linkFromExit = useCallback(
    (nodeId: string, exit: string, client: { x: number; y: number }): PendingLink | undefined => {
      const source = flow.getInternalNode(nodeId);
      if (!source) return undefined;
      const width = source.measured.width ?? 200;
      const at = flow.screenToFlowPosition(client);
      const position = { x: Math.round(source.internals.positionAbsolute.x + width + 80), y: Math.round(at.y - entryOffset) };
      return { source: nodeId, exit, spot: spotOf(client), position };
    },
    [flow, spotOf],
  );
  const actions = useMemo<EditorActions>(
    () => ({
      addFromExit: (nodeId, exit, client) => {
        const link = linkFromExit(nodeId, exit, client);
        if (link) setPendingLink(link);
      },
      endAtExit: (nodeId, exit, client) => {
        const link = linkFromExit(nodeId, exit, client);
        if (link) addBlock('hangup', undefined, link);
      },
      removeEdge: (edgeId) => {
        setHistory((current) => {
          const change = removeElements(current.graph, new Set(), new Set([edgeId]));
          return change ? commit(current, change) : current;
        });
        setSelection((current) => ({ nodes: current.nodes, edges: new Set([...current.edges].filter((id) => id !== edgeId)) }));
      },
    }),
    [addBlock, linkFromExit, setHistory, setSelection],
  );

  const onDrop = useCallback(
    (event: React.DragEvent) => {
      const type = event.dataTransfer.getData(blockDragType);
      if (!type) return;
      event.preventDefault();
      addBlock(type, flow.screenToFlowPosition({ x: event.clientX, y: event.clientY }));
    },
    [addBlock, flow],
  );

  return { selectOnly, viewCentre, pendingFollow, followAdd, addBlock, pendingLink, closePicker, onConnectEnd, actions, onDrop };
}

import '@xyflow/react/dist/style.css';
import { useComputedColorScheme } from '@mantine/core';
import type { PlanEdge, PlanNode } from '@voxplan/blocks/definitions';
import { Background, Controls, type Edge, MiniMap, ReactFlow, ReactFlowProvider, useStoreApi, type Viewport } from '@xyflow/react';
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from 'react';
import { BlockDataStore } from './block-data.ts';
import { useTranslation } from 'react-i18next';
import { type BlockFlowNode } from './BlockNode.tsx';
import { FollowNode } from './FollowNode.tsx';
import { canvasDefaults, FitOnceMeasured, fitOptions, planView } from './canvas-opening.tsx';
import { canvasMinZoom, chromeInsets, detailZoom } from './canvas-view.ts';
import type { NodeMark } from './decorations.ts';
import { BlockDataProvider, useEditorContext } from './editor-context.tsx';
import classes from './editor.module.css';
import { nodeTypes } from './node-types.ts';
import { OverviewEdges, useFlowEdges } from './overview-edges.tsx';

/** A read-only canvas has no overview map, so only the zoom buttons down its left are kept clear. */
const readOnlyInsets = chromeInsets(false);

/**
 * Narrower than this (a phone), a read-only canvas opens no further out than blocks drawn in full
 * (`detailZoom`), on the plan's start: the whole plan there is a few outlines nobody reads. Wider, it
 * shows the whole plan, which is what a path or the drop-offs are looked at for.
 */
const narrowCanvas = 600;

/**
 * The canvas's background, zoom buttons (and any the editor adds) and overview map, which only the
 * editor offers, hidden until the person asks for it; on a narrow screen it is not drawn at all
 * (editor.module.css), where it would cover the blocks. The fit button keeps the plan clear of them.
 */
export function CanvasChrome({
  minimap = false,
  insets,
  onFitView,
  children,
}: {
  minimap?: boolean;
  insets: ReturnType<typeof chromeInsets>;
  /** The fit button's own fit (the editor's, `fitWholePlan`), in place of React Flow's. */
  onFitView?: () => void;
  children?: React.ReactNode;
}) {
  const { t } = useTranslation();
  return (
    <>
      <Background />
      <Controls showInteractive={false} fitViewOptions={fitOptions(insets, 300)} onFitView={onFitView}>
        {children}
      </Controls>
      {minimap && <MiniMap pannable zoomable ariaLabel={t('editor.minimap')} className={classes.minimap} />}
    </>
  );
}

export interface ReadOnlyCanvasProps {
  nodes: readonly PlanNode[];
  edges: readonly PlanEdge[];
  /** Marks on blocks, by node id (a report's path, a drop-off heat map); blocks not named are drawn plain. */
  nodeDecorations?: Readonly<Record<string, NodeMark>>;
  /** Edges drawn in the path's colour, animated (the exits a session took). */
  highlightedEdges?: ReadonlySet<string>;
  /** A block to bring into view when it changes (a replay's current step); the zoom is kept. */
  focusNodeId?: string;
  onNodeClick?(nodeId: string): void;
}

const noMarks: Readonly<Record<string, NodeMark>> = Object.freeze({});

/**
 * A plan drawn as the editor draws it, for looking only: a published version, a call's path, a
 * plan's statistics. Goes inside an `EditorContextProvider` (the blocks name their references
 * through it); the marks are put in that context's decoration store, so a change redraws only the
 * blocks whose mark changed.
 */
export function ReadOnlyCanvas(props: ReadOnlyCanvasProps) {
  return (
    <ReactFlowProvider>
      <ReadOnlyFlow {...props} />
    </ReactFlowProvider>
  );
}

/** Inside the provider: which edges React Flow draws depends on its zoom (overview-edges.tsx). */
function ReadOnlyFlow({ nodes, edges, nodeDecorations = noMarks, highlightedEdges, focusNodeId, onNodeClick }: ReadOnlyCanvasProps) {
  const colorScheme = useComputedColorScheme('light');
  const { decorations } = useEditorContext();
  useLayoutEffect(() => decorations.setMarks(nodeDecorations), [decorations, nodeDecorations]);
  useEffect(() => () => decorations.setMarks(noMarks), [decorations]);
  const flowNodes = useMemo(() => nodes.map((node) => ({ ...node, data: (node.data ?? {}) as Record<string, unknown> })) as BlockFlowNode[], [nodes]);
  // React Flow hands a block its data, not the name a person gave it: the blocks read that here.
  const blocks = useMemo(() => new BlockDataStore(flowNodes), [flowNodes]);
  const flowEdges = useMemo<Edge[]>(
    () =>
      edges.map((edge) => ({
        id: edge.id,
        source: edge.source,
        sourceHandle: edge.source_exit,
        target: edge.target,
        ...(highlightedEdges?.has(edge.id) && { animated: true, className: classes.visitedEdge }),
      })),
    [edges, highlightedEdges],
  );
  const drawnEdges = useFlowEdges(flowEdges);
  // The view it opens with, from the stored positions, before React Flow draws a block.
  const box = useRef<HTMLDivElement>(null);
  const [opening, setOpening] = useState<{ viewport: Viewport; minZoom: number }>();
  const store = useStoreApi<BlockFlowNode>();
  useLayoutEffect(() => {
    const bounds = box.current?.getBoundingClientRect();
    const minZoom = bounds && bounds.width < narrowCanvas ? detailZoom : canvasMinZoom;
    const viewport = planView(nodes, edges, bounds?.width ?? 0, bounds?.height ?? 0, readOnlyInsets, minZoom);
    if (bounds && bounds.width > 0) store.setState({ transform: [viewport.x, viewport.y, viewport.zoom], width: bounds.width, height: bounds.height });
    setOpening((current) => current ?? { viewport, minZoom });
  }, [nodes, edges, store]);
  return (
    <BlockDataProvider store={blocks}>
    <div ref={box} style={{ width: '100%', height: '100%' }}>
    {opening && (
    <ReactFlow<BlockFlowNode>
      nodes={flowNodes}
      edges={drawnEdges}
      nodeTypes={nodeTypes}
      nodesDraggable={false}
      nodesConnectable={false}
      edgesReconnectable={false}
      elementsSelectable={false}
      deleteKeyCode={null}
      {...(onNodeClick && { onNodeClick: (_event: React.MouseEvent, node: BlockFlowNode) => onNodeClick(node.id) })}
      {...canvasDefaults}
      defaultViewport={opening.viewport}
      colorMode={colorScheme}
    >
      <CanvasChrome insets={readOnlyInsets} />
      <OverviewEdges edges={flowEdges} />
      <FitOnceMeasured edges={edges} inset={readOnlyInsets} minZoom={opening.minZoom} />
      {focusNodeId !== undefined && <FollowNode nodeId={focusNodeId} />}
    </ReactFlow>
    )}
    </div>
    </BlockDataProvider>
  );
}

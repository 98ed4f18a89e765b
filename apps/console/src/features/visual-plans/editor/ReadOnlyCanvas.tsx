import '@xyflow/react/dist/style.css';
import { useComputedColorScheme } from '@mantine/core';
import type { PlanEdge, PlanNode } from '@voxplan/blocks/definitions';
import { Background, Controls, type Edge, MiniMap, ReactFlow, ReactFlowProvider, useReactFlow, useStoreApi } from '@xyflow/react';
import { useEffect, useLayoutEffect, useMemo } from 'react';
import { BlockDataStore } from './block-data.ts';
import { useTranslation } from 'react-i18next';
import { type BlockFlowNode } from './BlockNode.tsx';
import { canvasMinZoom, fitMaxZoom, fitPadding } from './canvas-view.ts';
import type { NodeMark } from './decorations.ts';
import { BlockDataProvider, useEditorContext } from './editor-context.tsx';
import classes from './editor.module.css';
import { nodeTypes } from './node-types.ts';
import { OverviewEdges, useFlowEdges } from './overview-edges.tsx';

/** How every plan canvas opens: the whole plan in view, a small plan at its size, only what is in view drawn. */
export const canvasDefaults = { fitView: true, fitViewOptions: { maxZoom: fitMaxZoom, padding: fitPadding }, minZoom: canvasMinZoom, onlyRenderVisibleElements: true } as const;

/**
 * The canvas's background, zoom buttons (and any the editor adds) and overview map, which may be
 * hidden; on a narrow screen it is not drawn at all (editor.module.css), where it would cover the blocks.
 */
export function CanvasChrome({ minimap = true, children }: { minimap?: boolean; children?: React.ReactNode }) {
  const { t } = useTranslation();
  return (
    <>
      <Background />
      <Controls showInteractive={false}>{children}</Controls>
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
  return (
    <BlockDataProvider store={blocks}>
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
      colorMode={colorScheme}
    >
      <CanvasChrome />
      <OverviewEdges edges={flowEdges} />
      {focusNodeId !== undefined && <FocusNode nodeId={focusNodeId} />}
    </ReactFlow>
    </BlockDataProvider>
  );
}

/** Pans (not zooms) so that the block is in view, when it is not already. */
function FocusNode({ nodeId }: { nodeId: string }) {
  const flow = useReactFlow<BlockFlowNode>();
  const store = useStoreApi<BlockFlowNode>();
  useEffect(() => {
    const node = flow.getInternalNode(nodeId);
    if (!node) return;
    const { width: viewWidth, height: viewHeight, transform } = store.getState();
    const [tx, ty, zoom] = transform;
    const { x, y } = node.internals.positionAbsolute;
    const width = node.measured.width ?? 200;
    const height = node.measured.height ?? 80;
    const left = x * zoom + tx;
    const top = y * zoom + ty;
    const inView = left >= 0 && top >= 0 && left + width * zoom <= viewWidth && top + height * zoom <= viewHeight;
    if (!inView) void flow.setCenter(x + width / 2, y + height / 2, { zoom, duration: 200 });
  }, [flow, store, nodeId]);
  return null;
}

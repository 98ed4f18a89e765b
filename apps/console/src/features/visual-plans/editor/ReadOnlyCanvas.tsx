import { useComputedColorScheme } from '@mantine/core';
import type { PlanEdge, PlanNode } from '@voxplan/blocks/definitions';
import { Background, Controls, type Edge, MiniMap, ReactFlow, ReactFlowProvider } from '@xyflow/react';
import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { type BlockFlowNode } from './BlockNode.tsx';
import { nodeTypes } from './node-types.ts';

/** How every plan canvas opens: the whole plan in view, a small plan at its size, only what is in view drawn. */
export const canvasDefaults = { fitView: true, fitViewOptions: { maxZoom: 1 }, minZoom: 0.05, onlyRenderVisibleElements: true } as const;

/** The canvas's background, zoom buttons and overview map. */
export function CanvasChrome() {
  const { t } = useTranslation();
  return (
    <>
      <Background />
      <Controls showInteractive={false} />
      <MiniMap pannable zoomable ariaLabel={t('editor.minimap')} />
    </>
  );
}

/** A plan drawn as the editor draws it, for looking only (a published version; later, a call's path). */
export function ReadOnlyCanvas({ nodes, edges }: { nodes: readonly PlanNode[]; edges: readonly PlanEdge[] }) {
  const colorScheme = useComputedColorScheme('light');
  const flowNodes = useMemo(() => nodes.map((node) => ({ ...node, data: (node.data ?? {}) as Record<string, unknown> })) as BlockFlowNode[], [nodes]);
  const flowEdges = useMemo<Edge[]>(() => edges.map((edge) => ({ id: edge.id, source: edge.source, sourceHandle: edge.source_exit, target: edge.target })), [edges]);
  return (
    <ReactFlowProvider>
      <ReactFlow<BlockFlowNode>
        nodes={flowNodes}
        edges={flowEdges}
        nodeTypes={nodeTypes}
        nodesDraggable={false}
        nodesConnectable={false}
        edgesReconnectable={false}
        elementsSelectable={false}
        deleteKeyCode={null}
        {...canvasDefaults}
        colorMode={colorScheme}
      >
        <CanvasChrome />
      </ReactFlow>
    </ReactFlowProvider>
  );
}

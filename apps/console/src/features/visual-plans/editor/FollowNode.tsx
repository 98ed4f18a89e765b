import { useReactFlow, useStoreApi } from '@xyflow/react';
import { useEffect } from 'react';
import type { BlockFlowNode } from './BlockNode.tsx';

/**
 * Pans (never zooms) so that the block is in view when it is not already: the block a report opens
 * on, or the one a test run has reached, which the person follows without hunting for it.
 */
export function FollowNode({ nodeId }: { nodeId: string }) {
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

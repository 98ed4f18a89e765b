/**
 * Auto-layout with elkjs's layered algorithm (the flow reads left to right, as the exits do). Loaded
 * only when the user asks for a layout: elkjs is larger than the rest of the editor.
 */
import ELK from 'elkjs/lib/elk.bundled.js';
import type { Graph } from './graph-state.ts';

const defaultSize = { width: 200, height: 90 };

export async function layoutGraph(graph: Graph): Promise<Map<string, { x: number; y: number }>> {
  const elk = new ELK();
  const laid = await elk.layout({
    id: 'plan',
    layoutOptions: {
      'elk.algorithm': 'layered',
      'elk.direction': 'RIGHT',
      'elk.spacing.nodeNode': '40',
      'elk.layered.spacing.nodeNodeBetweenLayers': '80',
      'elk.layered.nodePlacement.strategy': 'BRANDES_KOEPF',
    },
    children: graph.nodes.map((node) => ({ id: node.id, width: node.measured?.width ?? defaultSize.width, height: node.measured?.height ?? defaultSize.height })),
    edges: graph.edges.map((edge) => ({ id: edge.id, sources: [edge.source], targets: [edge.target] })),
  });
  return new Map((laid.children ?? []).map((child) => [child.id, { x: Math.round(child.x ?? 0), y: Math.round(child.y ?? 0) }]));
}

/**
 * The floor of `bench:editor`'s open (floor.ts): React Flow alone drawing the bench's plan as its
 * own plain nodes and edges, in the view the editor opened with, after fetching the plan's document
 * as the editor does. No sign-in, router, Mantine, block drawing or editor state: what the editor
 * adds is the app's figure over this one. Its nodes come with their size and handles, as the
 * editor's do (canvas-view.ts `unmeasuredShape`), so React Flow draws those in view alone.
 */
import '@xyflow/react/dist/style.css';
import { type Edge, type Node, Position, ReactFlow } from '@xyflow/react';
import { createElement } from 'react';
import { createRoot } from 'react-dom/client';

interface PlanDocument {
  nodes: { id: string; type: string; position: { x: number; y: number }; data: { name?: string } }[];
  edges: { id: string; source: string; target: string }[];
}

const params = new URLSearchParams(window.location.search);
const viewport = { x: Number(params.get('x') ?? 0), y: Number(params.get('y') ?? 0), zoom: Number(params.get('zoom') ?? 1) };
// The size of the editor's canvas, when given: the same pixels to draw while panning.
const size = { width: params.get('width') ? `${params.get('width')}px` : '100%', height: params.get('height') ? `${params.get('height')}px` : '100%' };
const plan = (await (await fetch('./plan.json')).json()) as PlanDocument;
// A default node: 150 px wide, a line of text; its target handle on top, its source below (React Flow's style.css).
const handles: Node['handles'] = [
  { type: 'target', position: Position.Top, x: 71, y: -4, width: 8, height: 8 },
  { type: 'source', position: Position.Bottom, x: 71, y: 32, width: 8, height: 8 },
];
const nodes: Node[] = plan.nodes.map((node) => ({
  id: node.id,
  position: node.position,
  data: { label: node.data.name ?? node.type },
  initialWidth: 150,
  initialHeight: 40,
  handles,
}));
const edges: Edge[] = plan.edges.map((edge) => ({ id: edge.id, source: edge.source, target: edge.target }));

createRoot(document.getElementById('root')!).render(
  createElement(
    'div',
    // The editor's canvas is found by this name too: the bench pans and zooms both alike.
    { style: size, 'data-testid': 'plan-canvas' },
    createElement(ReactFlow, { nodes, edges, defaultViewport: viewport, minZoom: 0.05, onlyRenderVisibleElements: true }),
  ),
);

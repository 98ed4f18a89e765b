import { applyNodeChanges, type Connection, type Edge, type EdgeChange, type NodeChange } from '@xyflow/react';
import { useCallback, useMemo, useRef, useState } from 'react';
import type { BlockFlowNode } from './BlockNode.tsx';
import { type Selection, type SetHistory, type SetSelection, withSelectChanges } from './editor-selection.ts';
import classes from './editor.module.css';
import { commit, connect, type Graph, type GraphNode, removeElements, touch } from './graph-state.ts';
import { useFlowEdges } from './overview-edges.tsx';
import { nearestLineAt } from './PlanLine.tsx';

/** React Flow's edge for a plan edge, made once per plan edge object so that unchanged edges are not drawn again. */
const flowEdges = new WeakMap<object, Edge>();
function flowEdgeOf(edge: Graph['edges'][number], selected: boolean, visited: boolean, hovered: boolean): Edge {
  let flow = flowEdges.get(edge);
  if (!flow) {
    flow = { id: edge.id, type: 'plan', source: edge.source, sourceHandle: edge.source_exit, target: edge.target };
    flowEdges.set(edge, flow);
  }
  if (!selected && !visited && !hovered) return flow;
  return { ...flow, selected, ...(hovered && { data: { hovered } }), ...(visited ? { animated: true, className: classes.visitedEdge } : {}) };
}

/**
 * The canvas' own events turned into edits of the plan: lines marked and picked, blocks moved,
 * selected and removed, lines drawn, moved and dropped.
 */
export function useCanvasEvents(graph: Graph, selection: Selection, visitedEdges: ReadonlySet<string>, setHistory: SetHistory, setSelection: SetSelection) {
  const dragBase = useRef<Graph | null>(null);
  const [hoveredEdge, setHoveredEdge] = useState<string>();
  const edges = useMemo(
    () => graph.edges.map((edge) => flowEdgeOf(edge, selection.edges.has(edge.id), visitedEdges.has(edge.id), edge.id === hoveredEdge)),
    [graph.edges, selection.edges, visitedEdges, hoveredEdge],
  );
  // The line marked and picked is the one nearest the pointer, not the one drawn last (PlanLine.tsx).
  const onEdgeMouseMove = useCallback((event: React.MouseEvent, edge: Edge) => setHoveredEdge(nearestLineAt(event.clientX, event.clientY) ?? edge.id), []);
  const onEdgeMouseLeave = useCallback(() => setHoveredEdge(undefined), []);
  const onEdgeClick = useCallback(
    (event: React.MouseEvent, edge: Edge) => {
      const nearest = nearestLineAt(event.clientX, event.clientY);
      if (nearest && nearest !== edge.id && !event.shiftKey && !event.metaKey && !event.ctrlKey) setSelection({ nodes: new Set(), edges: new Set([nearest]) });
    },
    [setSelection],
  );
  const shownEdges = useFlowEdges(edges);

  const onNodesChange = useCallback(
    (changes: NodeChange<BlockFlowNode>[]) => {
      const selectChanges = changes.filter((change) => change.type === 'select');
      if (selectChanges.length > 0) setSelection((current) => ({ nodes: withSelectChanges(current.nodes, selectChanges), edges: current.edges }));
      const removed = changes.filter((change) => change.type === 'remove').map((change) => change.id);
      const moves = changes.filter((change) => change.type === 'position' || change.type === 'dimensions');
      setHistory((current) => {
        let next = current;
        if (moves.length > 0) next = touch(next, { nodes: applyNodeChanges(moves, next.graph.nodes as BlockFlowNode[]) as GraphNode[] });
        if (removed.length > 0) {
          const change = removeElements(next.graph, new Set(removed), new Set());
          if (change) next = commit(next, change);
        }
        return next;
      });
    },
    [setHistory, setSelection],
  );

  const onEdgesChange = useCallback(
    (changes: EdgeChange[]) => {
      const selectChanges = changes.filter((change) => change.type === 'select');
      if (selectChanges.length > 0) setSelection((current) => ({ nodes: current.nodes, edges: withSelectChanges(current.edges, selectChanges) }));
      const removed = changes.filter((change) => change.type === 'remove').map((change) => change.id);
      if (removed.length > 0) setHistory((current) => { const change = removeElements(current.graph, new Set(), new Set(removed)); return change ? commit(current, change) : current; });
    },
    [setHistory, setSelection],
  );

  const onConnect = useCallback(
    (connection: Connection) => {
      setHistory((current) => {
        const change = connect(current.graph, { source: connection.source, sourceExit: connection.sourceHandle ?? '', target: connection.target });
        return change ? commit(current, change) : current;
      });
    },
    [setHistory],
  );

  const reconnected = useRef(false);
  const onReconnect = useCallback(
    (old: Edge, connection: Connection) => {
      reconnected.current = true;
      setHistory((current) => {
        const change = connect(current.graph, { source: connection.source, sourceExit: connection.sourceHandle ?? '', target: connection.target }, old.id);
        return change ? commit(current, change) : current;
      });
    },
    [setHistory],
  );
  // An edge's end dropped on empty canvas removes the edge, as in most node editors.
  const onReconnectEnd = useCallback(
    (_event: unknown, old: Edge) => {
      if (!reconnected.current) setHistory((current) => { const change = removeElements(current.graph, new Set(), new Set([old.id])); return change ? commit(current, change) : current; });
      reconnected.current = false;
    },
    [setHistory],
  );

  const onNodeDragStart = useCallback(() => {
    setHistory((current) => {
      dragBase.current = current.graph;
      return current;
    });
  }, [setHistory]);
  const onNodeDragStop = useCallback(() => {
    setHistory((current) => {
      const base = dragBase.current;
      dragBase.current = null;
      if (!base || base.nodes === current.graph.nodes) return current;
      // One undo step for the whole drag: from where the blocks were when it began.
      return commit({ ...current, graph: base }, { nodes: current.graph.nodes });
    });
  }, [setHistory]);

  return {
    /** The lines as the editor marks them (selected, visited by a test, hovered), for the overview. */
    edges,
    /** The lines React Flow draws. */
    shownEdges,
    handlers: { onNodesChange, onEdgesChange, onConnect, onEdgeMouseMove, onEdgeMouseLeave, onEdgeClick, onReconnect, onReconnectEnd, onNodeDragStart, onNodeDragStop },
  };
}

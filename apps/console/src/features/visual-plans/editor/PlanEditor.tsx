import { ActionIcon, Alert, Badge, Button, Group, Loader, Stack, Text, Title, Tooltip, useComputedColorScheme } from '@mantine/core';
import { IconPlayerPlay } from '@tabler/icons-react';
import { useHotkeys, useLocalStorage, useMediaQuery } from '@mantine/hooks';
import { ControlButton } from '@xyflow/react';
import { IconLayoutSidebarLeftCollapse, IconLayoutSidebarLeftExpand, IconLayoutSidebarRightCollapse, IconLayoutSidebarRightExpand, IconMap, IconMapOff, IconMaximize, IconMinimize } from '@tabler/icons-react';
import { useQueryClient } from '@tanstack/react-query';
import type { PlanSettings } from '@voxplan/blocks/definitions';
import { blockDescription, connectionWarnings, contentWarnings, templateWarnings } from '@voxplan/blocks/editor/registry';
import { visibleExits } from './block-exits.ts';
import type { VisualPlanDocument } from '@voxplan/contracts/visual-plan';
import {
  applyNodeChanges,
  type Connection,
  type Edge,
  type EdgeChange,
  type FinalConnectionState,
  type NodeChange,
  ReactFlow,
  useReactFlow,
  useStoreApi,
  type Viewport,
} from '@xyflow/react';
import { lazy, Suspense, useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { useCanWrite } from '../../../lib/auth.tsx';
import { useLeaveGuard } from '../../../lib/leave-guard.ts';
import { toast } from '../../../lib/notify.ts';
import type { BlockFlowNode } from './BlockNode.tsx';
import { nodeTypes } from './node-types.ts';
import { CanvasChrome } from './ReadOnlyCanvas.tsx';
import { canvasDefaults, FitOnceMeasured, fitWholePlan, planView } from './canvas-opening.tsx';
import { FollowNode } from './FollowNode.tsx';
import { initialDataOf } from './block-look.tsx';
import { BlockDataStore, FlowNodes } from './block-data.ts';
import { chromeInsets, fullSummaryHeight, planBounds, unmeasuredWidth, viewAfterAdd } from './canvas-view.ts';
import { useWhatsAppTemplates } from './whatsapp-templates.ts';
import { DecorationStore } from './decorations.ts';
import { useEmptyFieldIssues } from './required-fields.ts';
import { BlockPicker, type PickerSpot } from './BlockPicker.tsx';
import { type EditorActions, EditorContextProvider } from './editor-context.tsx';
import { edgeTypes, nearestLineAt } from './PlanLine.tsx';
import { PublishDialog } from './PublishDialog.tsx';
import classes from './editor.module.css';
import { EditorToolbar } from './EditorToolbar.tsx';
import {
  assignedVariables,
  commit,
  connect,
  type EditorHistory,
  freeSpotNear,
  withChatFollowingVoice,
  fragmentOf,
  type Graph,
  type GraphNode,
  graphOf,
  idsOf,
  newId,
  paste,
  readFragment,
  redo,
  removeElements,
  startHistory,
  touch,
  undo,
} from './graph-state.ts';
import { IssuesButton } from './IssuesButton.tsx';
import { OverviewEdges, useFlowEdges } from './overview-edges.tsx';
import { blockDragType, Palette } from './Palette.tsx';
import { SidePanel } from './SidePanel.tsx';
import type { TestPanelPath } from './test-panel/TestPanel.tsx';

// The test panel loads when it is first opened: most visits to a plan never run it.
const TestPanel = lazy(() => import('./test-panel/TestPanel.tsx').then((module) => ({ default: module.TestPanel })));
import { usePlanSaving } from './use-plan-saving.tsx';


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

// Constants, not arrays made at each render: React Flow listens to the keys again whenever they change.
const deleteKeys = ['Delete', 'Backspace'];
const multiSelectionKeys = ['Shift', 'Meta', 'Control'];

interface Selection {
  nodes: ReadonlySet<string>;
  edges: ReadonlySet<string>;
}
const nothingSelected: Selection = { nodes: new Set(), edges: new Set() };

/** An exit waiting for the block the user picks to follow it: where the picker shows, where the block goes. */
interface PendingLink {
  source: string;
  exit: string;
  spot: PickerSpot;
  /** The new block's top-left corner, in the plan's coordinates. */
  position: { x: number; y: number };
}

/** A new block's entry handle sits this far below its top (editor.module.css `.targetHandle`). */
const entryOffset = 16;

/** The selected ids after React Flow's select changes (a click, a box, a deselection). */
function withSelectChanges(selected: ReadonlySet<string>, changes: readonly { id: string; selected: boolean }[]): ReadonlySet<string> {
  const next = new Set(selected);
  for (const change of changes) {
    if (change.selected) next.add(change.id);
    else next.delete(change.id);
  }
  return next;
}

/** The canvas of one plan: palette, blocks and edges, the side panel, saving and history. */
export function PlanEditor({ loaded, onReload }: { loaded: VisualPlanDocument; onReload(): void }) {
  const { t, i18n } = useTranslation();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  // On a phone the plan is shown, not edited: the canvas pans, zooms and selects, the side panel shows a block's settings.
  const narrow = useMediaQuery('(max-width: 600px)', false, { getInitialValueInEffect: false });
  const readOnly = !useCanWrite() || narrow;
  const colorScheme = useComputedColorScheme('light');
  const flow = useReactFlow<BlockFlowNode>();
  const flowStore = useStoreApi<BlockFlowNode>();
  const canvasRef = useRef<HTMLDivElement>(null);
  /*
   * The overview map as the person last left it; never chosen, it is hidden: wherever it stands it
   * covers blocks of a plan larger than the view, the plans it would help with (issue 36). A narrow
   * screen never draws it (editor.module.css).
   */
  const [minimapChoice, setMinimapShown] = useLocalStorage<boolean | null>({ key: 'editor:minimap', defaultValue: null, getInitialValueInEffect: false });
  const minimapShown = minimapChoice ?? false;
  // What the canvas's own controls cover, kept clear by the views the editor chooses.
  const insets = useMemo(() => chromeInsets(minimapShown && !narrow), [minimapShown, narrow]);
  /*
   * The view the canvas opens with, worked out from the stored positions before React Flow draws a
   * block (opening-view.ts), so that the blocks' first render already has its zoom; fitted again
   * once the blocks in view are measured (canvas-opening.tsx).
   */
  const [opening, setOpening] = useState<Viewport>();
  // Once, with the plan as it opened: the person's view is theirs after (a minimap shown later moves nothing).
  const opened = useRef(false);
  useLayoutEffect(() => {
    if (opened.current) return;
    opened.current = true;
    const bounds = canvasRef.current?.getBoundingClientRect();
    if (!bounds || bounds.width === 0 || bounds.height === 0) {
      setOpening({ x: 0, y: 0, zoom: 1 });
      return;
    }
    const viewport = planView(loaded.nodes, loaded.edges, bounds.width, bounds.height, insets);
    // React Flow's store is read by the blocks' first render, before its pane applies `defaultViewport`.
    flowStore.setState({ transform: [viewport.x, viewport.y, viewport.zoom], width: bounds.width, height: bounds.height });
    setOpening(viewport);
  }, [flowStore, loaded, insets]);
  const [decorations] = useState(() => {
    const store = new DecorationStore();
    store.setIssues(loaded.errors, loaded.warnings);
    return store;
  });
  const [history, setHistory] = useState<EditorHistory>(() => startHistory(graphOf(loaded)));
  const [selection, setSelection] = useState<Selection>(nothingSelected);
  const dragBase = useRef<Graph | null>(null);
  const graph = history.graph;

  const saving = usePlanSaving({ loaded, graph, decorations, readOnly, onReload });

  // Exits left unconnected, blocks cut off and messages that say nothing show in the issues as the plan is edited, not on save only.
  // So are WhatsApp templates not synced or not approved, and their parameters left unmapped, once the tenant's templates are loaded.
  const templates = useWhatsAppTemplates(loaded.tenant_id).data;
  useEffect(() => {
    if (readOnly) return;
    const exits = (node: GraphNode) => visibleExits(node.type, node.data, []).map((row) => row.exit);
    decorations.setConnectionWarnings([
      ...connectionWarnings(graph, exits, (type) => blockDescription(type)?.quietExits ?? []),
      ...contentWarnings(graph.nodes),
      ...(templates ? templateWarnings(graph.nodes, templates) : []),
    ]);
  }, [decorations, graph, readOnly, templates]);

  // So are the required fields left empty, named by their labels.
  useEmptyFieldIssues(graph.nodes, decorations, i18n.language === 'pt' ? 'pt' : 'en', t, !readOnly);

  const edit = useCallback((change: Parameters<typeof commit>[1] | undefined, mergeKey?: string) => {
    if (!change) return;
    setHistory((current) => commit(current, change, { mergeKey }));
  }, []);

  /* React Flow's view of the graph */

  // While the user types into a block's form, React Flow keeps its nodes; the block reads its data from the store.
  const [flowNodes] = useState(() => new FlowNodes());
  const [blockData] = useState(() => new BlockDataStore(graph.nodes));
  const nodes = useMemo(() => flowNodes.of(graph.nodes, selection.nodes), [flowNodes, graph.nodes, selection.nodes]);
  useLayoutEffect(() => blockData.update(graph.nodes), [blockData, graph.nodes]);
  const [testing, setTesting] = useState<{ startNodeId?: string } | null>(null);
  const [visitedEdges, setVisitedEdges] = useState<ReadonlySet<string>>(new Set());
  // The block a test run has reached, which the canvas keeps in view.
  const [testedNodeId, setTestedNodeId] = useState<string>();
  const [hoveredEdge, setHoveredEdge] = useState<string>();
  const edges = useMemo(
    () => graph.edges.map((edge) => flowEdgeOf(edge, selection.edges.has(edge.id), visitedEdges.has(edge.id), edge.id === hoveredEdge)),
    [graph.edges, selection.edges, visitedEdges, hoveredEdge],
  );
  // The line marked and picked is the one nearest the pointer, not the one drawn last (PlanLine.tsx).
  const onEdgeMouseMove = useCallback((event: React.MouseEvent, edge: Edge) => setHoveredEdge(nearestLineAt(event.clientX, event.clientY) ?? edge.id), []);
  const onEdgeMouseLeave = useCallback(() => setHoveredEdge(undefined), []);
  const onEdgeClick = useCallback((event: React.MouseEvent, edge: Edge) => {
    const nearest = nearestLineAt(event.clientX, event.clientY);
    if (nearest && nearest !== edge.id && !event.shiftKey && !event.metaKey && !event.ctrlKey) setSelection({ nodes: new Set(), edges: new Set([nearest]) });
  }, []);
  const flowEdges = useFlowEdges(edges);
  const onPathChange = useCallback(
    (path: TestPanelPath) => {
      decorations.setPath(path.nodeIds, path.current);
      setVisitedEdges(new Set(path.edgeIds ?? []));
      setTestedNodeId(path.current);
    },
    [decorations],
  );
  const closeTest = useCallback(() => {
    setTesting(null);
    decorations.setPath([], undefined);
    setVisitedEdges(new Set());
  }, [decorations]);

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
    [],
  );

  const onEdgesChange = useCallback((changes: EdgeChange[]) => {
    const selectChanges = changes.filter((change) => change.type === 'select');
    if (selectChanges.length > 0) setSelection((current) => ({ nodes: current.nodes, edges: withSelectChanges(current.edges, selectChanges) }));
    const removed = changes.filter((change) => change.type === 'remove').map((change) => change.id);
    if (removed.length > 0) setHistory((current) => { const change = removeElements(current.graph, new Set(), new Set(removed)); return change ? commit(current, change) : current; });
  }, []);

  const onConnect = useCallback(
    (connection: Connection) => {
      setHistory((current) => {
        const change = connect(current.graph, { source: connection.source, sourceExit: connection.sourceHandle ?? '', target: connection.target });
        return change ? commit(current, change) : current;
      });
    },
    [],
  );

  const reconnected = useRef(false);
  const onReconnect = useCallback((old: Edge, connection: Connection) => {
    reconnected.current = true;
    setHistory((current) => {
      const change = connect(current.graph, { source: connection.source, sourceExit: connection.sourceHandle ?? '', target: connection.target }, old.id);
      return change ? commit(current, change) : current;
    });
  }, []);
  // An edge's end dropped on empty canvas removes the edge, as in most node editors.
  const onReconnectEnd = useCallback((_event: unknown, old: Edge) => {
    if (!reconnected.current) setHistory((current) => { const change = removeElements(current.graph, new Set(), new Set([old.id])); return change ? commit(current, change) : current; });
    reconnected.current = false;
  }, []);

  const onNodeDragStart = useCallback(() => {
    setHistory((current) => {
      dragBase.current = current.graph;
      return current;
    });
  }, []);
  const onNodeDragStop = useCallback(() => {
    setHistory((current) => {
      const base = dragBase.current;
      dragBase.current = null;
      if (!base || base.nodes === current.graph.nodes) return current;
      // One undo step for the whole drag: from where the blocks were when it began.
      return commit({ ...current, graph: base }, { nodes: current.graph.nodes });
    });
  }, []);

  /* Adding, copying and pasting blocks */

  const selectOnly = useCallback((nodeIds: readonly string[]) => setSelection({ nodes: new Set(nodeIds), edges: new Set() }), []);

  /** Where added and pasted blocks go: around the middle of what the user is looking at. */
  const viewCentre = useCallback(() => {
    const bounds = canvasRef.current?.getBoundingClientRect();
    const centre = flow.screenToFlowPosition(bounds ? { x: bounds.left + bounds.width / 2, y: bounds.top + bounds.height / 2 } : { x: 0, y: 0 });
    return { x: Math.round(centre.x - 90), y: Math.round(centre.y - 30) };
  }, [flow]);

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
    [flow],
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
    [readOnly, selectOnly, viewCentre],
  );

  /* Following an exit with a new block: a line dropped on empty canvas, or an exit's "+" */

  const [pendingLink, setPendingLink] = useState<PendingLink>();
  const closePicker = useCallback(() => setPendingLink(undefined), []);
  const spotOf = useCallback((client: { x: number; y: number }): PickerSpot => {
    const bounds = canvasRef.current?.getBoundingClientRect();
    return { left: client.x - (bounds?.left ?? 0), top: client.y - (bounds?.top ?? 0) };
  }, []);
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
    [flow, readOnly, spotOf],
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
    [addBlock, linkFromExit],
  );

  const pasteFragment = useCallback(
    (text: string, placement: Parameters<typeof paste>[2]) => {
      const fragment = readFragment(text);
      if (!fragment || readOnly) return false;
      setHistory((current) => {
        const pasted = paste(current.graph, fragment, placement);
        if (!pasted) return current;
        queueMicrotask(() => selectOnly(pasted.nodeIds));
        return commit(current, pasted.change);
      });
      return true;
    },
    [readOnly, selectOnly],
  );

  const copySelection = useCallback((): string | undefined => {
    const fragment = fragmentOf(graph, selection.nodes);
    return fragment.nodes.length > 0 ? JSON.stringify(fragment) : undefined;
  }, [graph, selection.nodes]);

  const duplicateSelection = useCallback(() => {
    const text = copySelection();
    if (text) pasteFragment(text, { offset: { x: 40, y: 40 } });
  }, [copySelection, pasteFragment]);

  const removeSelection = useCallback(() => {
    if (readOnly) return;
    setHistory((current) => {
      const change = removeElements(current.graph, selection.nodes, selection.edges);
      return change ? commit(current, change) : current;
    });
    setSelection(nothingSelected);
  }, [readOnly, selection]);

  // The system clipboard carries blocks as the plan file's JSON: between plans and browser tabs.
  useEffect(() => {
    const inField = () => {
      const active = document.activeElement;
      return active instanceof HTMLElement && (active.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(active.tagName));
    };
    const onCopy = (event: ClipboardEvent) => {
      if (inField()) return;
      const text = copySelection();
      if (!text || !event.clipboardData) return;
      event.clipboardData.setData('text/plain', text);
      event.preventDefault();
    };
    const onCut = (event: ClipboardEvent) => {
      if (inField() || readOnly) return;
      onCopy(event);
      if (event.defaultPrevented) removeSelection();
    };
    const onPaste = (event: ClipboardEvent) => {
      if (inField()) return;
      const text = event.clipboardData?.getData('text/plain');
      if (text && pasteFragment(text, { at: viewCentre() })) event.preventDefault();
    };
    document.addEventListener('copy', onCopy);
    document.addEventListener('cut', onCut);
    document.addEventListener('paste', onPaste);
    return () => {
      document.removeEventListener('copy', onCopy);
      document.removeEventListener('cut', onCut);
      document.removeEventListener('paste', onPaste);
    };
  }, [copySelection, pasteFragment, readOnly, removeSelection, viewCentre]);

  const onDrop = useCallback(
    (event: React.DragEvent) => {
      const type = event.dataTransfer.getData(blockDragType);
      if (!type) return;
      event.preventDefault();
      addBlock(type, flow.screenToFlowPosition({ x: event.clientX, y: event.clientY }));
    },
    [addBlock, flow],
  );

  /* Block data and plan settings */

  const updateNodeData = useCallback(
    (nodeId: string, data: Record<string, unknown>) => {
      setHistory((current) => {
        const synced = current.graph.settings.sync_with_voice_text ? withChatFollowingVoice(data) : data;
        return commit(current, { nodes: current.graph.nodes.map((node) => (node.id === nodeId ? { ...node, data: synced } : node)) }, { mergeKey: `node:${nodeId}` });
      });
    },
    [],
  );
  const updateNodeLabel = useCallback((nodeId: string, typed: string) => {
    setHistory((current) =>
      commit(
        current,
        {
          nodes: current.graph.nodes.map((node) => {
            if (node.id !== nodeId) return node;
            // Kept as typed (spaces and all) while typing; saving trims it, and drops one left empty.
            const { label: _before, ...rest } = node;
            return typed === '' ? rest : { ...node, label: typed };
          }),
        },
        { mergeKey: `label:${nodeId}` },
      ),
    );
  }, []);
  const updateSettings = useCallback((settings: PlanSettings, field: string) => {
    setHistory((current) => {
      // Turning the sync on brings every block's chat text in line at once (one undo step).
      const syncing = settings.sync_with_voice_text && !current.graph.settings.sync_with_voice_text;
      const nodes = syncing ? current.graph.nodes.map((node) => ({ ...node, data: withChatFollowingVoice(node.data) })) : current.graph.nodes;
      return commit(current, { settings, nodes }, { mergeKey: `settings.${field}` });
    });
  }, []);

  const focusNode = useCallback(
    (nodeId: string) => {
      const node = flow.getNode(nodeId);
      if (!node) return;
      selectOnly([nodeId]);
      const width = node.measured?.width ?? 200;
      const height = node.measured?.height ?? 80;
      void flow.setCenter(node.position.x + width / 2, node.position.y + height / 2, { zoom: Math.max(flow.getZoom(), 1), duration: 300 });
    },
    [flow, selectOnly],
  );

  const fitPlan = useCallback(() => fitWholePlan(flow, flowStore, graph.edges, insets, 300), [flow, flowStore, graph.edges, insets]);

  const autoLayout = useCallback(async () => {
    const { layoutGraph } = await import('./auto-layout.ts');
    const positions = await layoutGraph(history.graph);
    edit({ nodes: history.graph.nodes.map((node) => ({ ...node, position: positions.get(node.id) ?? node.position })) });
    requestAnimationFrame(() => fitWholePlan(flow, flowStore, history.graph.edges, insets, 300));
  }, [edit, flow, flowStore, history.graph, insets]);

  /* Keys, leaving and the tenant */

  const dirty = graph.revision !== saving.savedRevision;
  useHotkeys([
    ['mod+z', () => setHistory(undo)],
    ['mod+shift+z', () => setHistory(redo)],
    ['mod+y', () => setHistory(redo)],
    ['mod+d', () => duplicateSelection()],
    ['mod+a', () => setSelection({ nodes: new Set(graph.nodes.map((node) => node.id)), edges: new Set(graph.edges.map((edge) => edge.id)) })],
  ]);

  // Saving works from inside a field too (Mantine's hotkeys skip fields unless told no tag is ignored), never the browser's "save page".
  useHotkeys([['mod+s', () => void saving.save()]], []);

  useLeaveGuard(
    async (reason) => {
      if (reason === 'tenant') {
        // The plan is the old tenant's: it closes either way, once its work is saved or let go.
        const leave = !dirty || (await saving.askToLeave(reason));
        if (leave) navigate('/visual-plan');
        return leave;
      }
      return !dirty || saving.askToLeave(reason);
    },
    () => dirty,
    (path) => navigate(path),
  );

  // The plan list shows the version and the time of the last save.
  useEffect(() => () => void queryClient.invalidateQueries({ queryKey: ['/visual-plans'] }), [queryClient]);

  /* Room: the panels fold away (remembered), the minimap hides, the editor takes the whole window */

  /*
   * The canvas gets the room unless the person chose otherwise (issue 36: both panels open left it
   * 425 px of a 1280 px screen): the block list is open while the plan has only its start block
   * when opened (a plan being started is built from it; after, blocks come from the exits' "+"),
   * and the side panel shows while a block is selected, its form being what it is for.
   */
  const remembered = (key: string) => ({ key: `editor:${key}`, defaultValue: null, getInitialValueInEffect: false });
  const [paletteChoice, setPaletteOpen] = useLocalStorage<boolean | null>(remembered('palette'));
  const [sideChoice, setSideOpen] = useLocalStorage<boolean | null>(remembered('side'));
  const [isNewPlan] = useState(() => loaded.nodes.length <= 1);
  const paletteOpen = paletteChoice ?? isNewPlan;
  const sideOpen = sideChoice ?? selection.nodes.size > 0;
  const [wholeWindow, setWholeWindow] = useState(false);
  const [publishAsked, setPublishAsked] = useState(false);
  useHotkeys([['Escape', () => setWholeWindow(false)]]);
  // The test panel lives in the side panel: testing opens it.
  const sideShown = sideOpen || testing !== null;
  const fold = (side: 'start' | 'end', open: boolean, toggle: () => void) => {
    const label = t(`editor.room.${side === 'start' ? 'blocks' : 'panel'}${open ? 'Hide' : 'Show'}`);
    const Icon = side === 'start' ? (open ? IconLayoutSidebarLeftCollapse : IconLayoutSidebarLeftExpand) : open ? IconLayoutSidebarRightCollapse : IconLayoutSidebarRightExpand;
    return (
      <Tooltip label={label}>
        <ActionIcon variant="default" size="sm" className={classes.fold} data-side={side} aria-label={label} onClick={toggle} data-testid={`fold-${side === 'start' ? 'blocks' : 'panel'}`}>
          <Icon size={16} />
        </ActionIcon>
      </Tooltip>
    );
  };

  const variableNames = useMemo(() => assignedVariables(graph), [graph]);
  const singleNode = selection.nodes.size === 1 ? graph.nodes.find((node) => selection.nodes.has(node.id)) : undefined;

  /*
   * The side panel a selection opens narrows the canvas from the right: a block just added is
   * followed on the canvas as it now is (`followAdd`), and a block selected otherwise is kept in
   * view, clear of the fold button, at once (no glide under the pointer).
   */
  const selectedId = singleNode?.id;
  useLayoutEffect(() => {
    const pending = pendingFollow.current;
    if (pending) {
      pendingFollow.current = null;
      followAdd(pending.plan, pending.node);
      return;
    }
    if (!sideShown || selectedId === undefined || narrow) return;
    const canvas = canvasRef.current?.getBoundingClientRect();
    const node = flow.getInternalNode(selectedId);
    if (!canvas || !node) return;
    const { x, y, zoom } = flow.getViewport();
    const right = (node.internals.positionAbsolute.x + (node.measured.width ?? unmeasuredWidth)) * zoom + x;
    const overflow = right + insets.right - canvas.width;
    if (overflow > 0) void flow.setViewport({ x: x - overflow, y, zoom });
  }, [selection, sideShown, selectedId, narrow, flow, insets, followAdd]);

  return (
    <EditorContextProvider planId={loaded.id} tenantId={loaded.tenant_id} readOnly={readOnly} decorations={decorations} blockData={blockData} actions={readOnly ? undefined : actions}>
      <div className={classes.shell} data-whole-window={wholeWindow || undefined} data-testid="editor-shell">
        {narrow && (
          <Alert color="blue" p="xs" mb="xs" data-testid="editor-narrow">
            <Text size="xs">{t('editor.narrow')}</Text>
          </Alert>
        )}
        {/* The status row sets the width of the name's column: the name gives way (truncated), the
            status is never cut ("Alterações não salvas"); without the room, the buttons go below. */}
        <Group justify="space-between" mb="xs" wrap="wrap" gap="xs">
          <Stack gap={2} style={{ flex: '1 1 auto' }}>
            <Title order={4} style={{ width: 0, minWidth: '100%', overflow: 'hidden', textOverflow: 'ellipsis', whiteSpace: 'nowrap' }} data-testid="editor-plan-name">
              {loaded.name}
            </Title>
            <Group gap={6} wrap="nowrap">
              <Badge size="sm" variant="light" style={{ flexShrink: 0 }} data-testid="editor-version">
                {t('editor.version', { version: saving.baseVersion })}
              </Badge>
              {saving.publishedVersion !== null ? (
                <Badge size="sm" variant="light" color="teal" style={{ flexShrink: 0 }} data-testid="editor-published">
                  {t('editor.publishedVersion', { version: saving.publishedVersion })}
                </Badge>
              ) : (
                <Badge size="sm" variant="light" color="gray" style={{ flexShrink: 0 }} data-testid="editor-published">
                  {t('editor.neverPublished')}
                </Badge>
              )}
              {readOnly && (
                <Badge size="sm" color="gray" style={{ flexShrink: 0 }} data-testid="editor-read-only">
                  {t('editor.readOnly')}
                </Badge>
              )}
              {!readOnly && (
                <Text size="xs" c={dirty ? 'orange' : 'dimmed'} style={{ whiteSpace: 'nowrap', flexShrink: 0 }} data-testid="editor-dirty">
                  {dirty ? t('editor.unsaved') : t('editor.saved')}
                </Text>
              )}
            </Group>
          </Stack>
          <Group gap="xs" wrap="nowrap">
            <IssuesButton onFocusNode={focusNode} nodes={graph.nodes} />
            <Button
              variant={testing ? 'filled' : 'light'}
              leftSection={<IconPlayerPlay size={16} />}
              onClick={() => (testing ? closeTest() : setTesting({}))}
              data-testid="editor-test"
            >
              {t('editor.test')}
            </Button>
            <EditorToolbar
              readOnly={readOnly}
              canUndo={history.past.length > 0}
              canRedo={history.future.length > 0}
              onUndo={() => setHistory(undo)}
              onRedo={() => setHistory(redo)}
              onAutoLayout={() => void autoLayout()}
              onFitView={fitPlan}
              onPublish={() => setPublishAsked(true)}
              onFocusNode={focusNode}
              graph={graph}
              saving={saving}
              dirty={dirty}
              hasSelection={selection.nodes.size > 0}
              onDuplicate={duplicateSelection}
              onRemove={removeSelection}
              onCopy={() => {
                const text = copySelection();
                if (text) void navigator.clipboard.writeText(text).then(() => toast('success', t('editor.copied')));
              }}
              onPaste={() =>
                void navigator.clipboard.readText().then((text) => {
                  if (!pasteFragment(text, { at: viewCentre() })) toast('warning', t('editor.nothingToPaste'));
                })
              }
            />
          </Group>
        </Group>
        <div className={classes.body}>
          {!readOnly && paletteOpen && <Palette onAdd={(type) => addBlock(type)} />}
          <div className={classes.canvas} ref={canvasRef} onDragOver={(event) => event.preventDefault()} onDrop={onDrop} data-testid="plan-canvas">
            {opening && (
              <ReactFlow<BlockFlowNode>
                nodes={nodes}
                edges={flowEdges}
                nodeTypes={nodeTypes}
                edgeTypes={edgeTypes}
                onNodesChange={onNodesChange}
                onEdgesChange={onEdgesChange}
                onConnect={onConnect}
                onConnectEnd={onConnectEnd}
                onEdgeMouseMove={onEdgeMouseMove}
                onEdgeMouseLeave={onEdgeMouseLeave}
                onEdgeClick={onEdgeClick}
                onReconnect={onReconnect}
                onReconnectEnd={onReconnectEnd}
                onNodeDragStart={onNodeDragStart}
                onNodeDragStop={onNodeDragStop}
                nodesDraggable={!readOnly}
                nodesConnectable={!readOnly}
                edgesReconnectable={!readOnly}
                deleteKeyCode={readOnly ? null : deleteKeys}
                multiSelectionKeyCode={multiSelectionKeys}
                {...canvasDefaults}
                defaultViewport={opening}
                colorMode={colorScheme}
              >
                <CanvasChrome minimap={minimapShown} insets={insets} onFitView={fitPlan}>
                  <ControlButton onClick={() => setMinimapShown(!minimapShown)} title={t(minimapShown ? 'editor.room.minimapHide' : 'editor.room.minimapShow')} aria-label={t(minimapShown ? 'editor.room.minimapHide' : 'editor.room.minimapShow')} data-testid="toggle-minimap">
                    {minimapShown ? <IconMapOff size={14} /> : <IconMap size={14} />}
                  </ControlButton>
                  <ControlButton onClick={() => setWholeWindow(!wholeWindow)} title={t(wholeWindow ? 'editor.room.windowExit' : 'editor.room.window')} aria-label={t(wholeWindow ? 'editor.room.windowExit' : 'editor.room.window')} data-testid="toggle-whole-window">
                    {wholeWindow ? <IconMinimize size={14} /> : <IconMaximize size={14} />}
                  </ControlButton>
                </CanvasChrome>
                <OverviewEdges edges={edges} />
                <FitOnceMeasured edges={loaded.edges} inset={insets} />
                {testing && testedNodeId !== undefined && <FollowNode nodeId={testedNodeId} />}
              </ReactFlow>
            )}
            {!readOnly && fold('start', paletteOpen, () => setPaletteOpen(!paletteOpen))}
            {!testing && fold('end', sideOpen, () => setSideOpen(!sideOpen))}
            {pendingLink && (
              <BlockPicker
                spot={pendingLink.spot}
                bounds={{ width: canvasRef.current?.clientWidth ?? 800, height: canvasRef.current?.clientHeight ?? 600 }}
                onPick={(type, data) => {
                  addBlock(type, undefined, pendingLink, data);
                  closePicker();
                }}
                onClose={closePicker}
              />
            )}
          </div>
          <aside className={sideShown ? classes.side : `${classes.side} ${classes.folded}`} aria-hidden={!sideShown || undefined} inert={!sideShown} aria-label={t(testing ? 'editor.testPanel' : 'editor.sidePanel')}>
            {testing ? (
              <>
                {dirty && (
                  <Alert color="yellow" m="xs" p="xs" data-testid="test-unsaved">
                    <Group justify="space-between" wrap="nowrap" gap="xs">
                      <Text size="xs">{t('editor.testUnsaved')}</Text>
                      <Button size="compact-xs" onClick={() => void saving.save()} loading={saving.saving}>
                        {t('common.save')}
                      </Button>
                    </Group>
                  </Alert>
                )}
                <Suspense fallback={<Loader m="md" size="sm" aria-label={t('common.loading')} />}>
                  <TestPanel
                    key={testing.startNodeId ?? ''}
                    planId={loaded.id}
                    startNodeId={testing.startNodeId}
                    edges={saving.savedEdges}
                    nodes={graph.nodes}
                    onPathChange={onPathChange}
                    onClose={closeTest}
                  />
                </Suspense>
              </>
            ) : (
              <SidePanel
                node={singleNode}
                selectedCount={selection.nodes.size}
                settings={graph.settings}
                onNodeDataChange={updateNodeData}
                onNodeLabelChange={updateNodeLabel}
                onSettingsChange={updateSettings}
                onTestFrom={(nodeId) => setTesting({ startNodeId: nodeId })}
                variableNames={variableNames}
              />
            )}
          </aside>
        </div>
      </div>
      {saving.dialogs}
      {publishAsked && (
        <PublishDialog
          graph={graph}
          publishedVersion={saving.publishedVersion}
          unsaved={dirty}
          onClose={() => setPublishAsked(false)}
          onConfirm={(rollout) => {
            setPublishAsked(false);
            void saving.publish(rollout);
          }}
        />
      )}
    </EditorContextProvider>
  );
}


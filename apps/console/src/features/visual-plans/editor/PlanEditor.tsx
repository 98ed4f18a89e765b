import { Alert, Button, Group, Loader, Text, useComputedColorScheme } from '@mantine/core';
import { useHotkeys, useLocalStorage, useMediaQuery } from '@mantine/hooks';
import { ControlButton } from '@xyflow/react';
import { IconMap, IconMapOff, IconMaximize, IconMinimize } from '@tabler/icons-react';
import { FoldButton } from './FoldButton.tsx';
import { useQueryClient } from '@tanstack/react-query';
import { blockDescription, connectionWarnings, contentWarnings, templateWarnings } from '@voxplan/blocks/editor/registry';
import { visibleExits } from './block-exits.ts';
import type { VisualPlanDocument } from '@voxplan/contracts/visual-plan';
import { ReactFlow, useReactFlow, useStoreApi, type Viewport } from '@xyflow/react';
import { lazy, Suspense, useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { useCanWrite } from '../../../lib/auth.tsx';
import { loadRolloutTexts } from '../../../i18n/index.ts';
import { useLeaveGuard } from '../../../lib/leave-guard.ts';
import { toast } from '../../../lib/notify.ts';
import type { BlockFlowNode } from './BlockNode.tsx';
import { nodeTypes } from './node-types.ts';
import { CanvasChrome } from './ReadOnlyCanvas.tsx';
import { canvasDefaults, FitOnceMeasured, fitWholePlan, planView } from './canvas-opening.tsx';
import { FollowNode } from './FollowNode.tsx';
import { BlockDataStore, FlowNodes } from './block-data.ts';
import { chromeInsets, unmeasuredWidth } from './canvas-view.ts';
import { useWhatsAppTemplates } from './whatsapp-templates.ts';
import { DecorationStore } from './decorations.ts';
import { useEmptyFieldIssues } from './required-fields.ts';
import { BlockPicker } from './BlockPicker.tsx';
import { EditorContextProvider } from './editor-context.tsx';
import { edgeTypes } from './PlanLine.tsx';
import classes from './editor.module.css';
import { EditorHeader } from './EditorHeader.tsx';
import { nothingSelected, type Selection } from './editor-selection.ts';
import { assignedVariables, commit, type EditorHistory, type GraphNode, graphOf, redo, startHistory, undo } from './graph-state.ts';
import { OverviewEdges } from './overview-edges.tsx';
import { Palette } from './Palette.tsx';
import { SidePanel } from './SidePanel.tsx';
import type { TestPanelPath } from './test-panel/TestPanel.tsx';
import { useBlockAdding } from './use-block-adding.ts';
import { useCanvasEvents } from './use-canvas-events.ts';
import { useClipboard } from './use-clipboard.ts';
import { useNodeEditing } from './use-node-editing.ts';
import { usePlanSaving } from './use-plan-saving.tsx';

// The test panel and the publish dialog (with its rollout fields) load when first opened: most visits to a plan never use them.
const PublishDialog = lazy(() => Promise.all([import('./PublishDialog.tsx'), loadRolloutTexts()]).then(([module]) => ({ default: module.PublishDialog })));
const TestPanel = lazy(() => import('./test-panel/TestPanel.tsx').then((module) => ({ default: module.TestPanel })));

// Constants, not arrays made at each render: React Flow listens to the keys again whenever they change.
const deleteKeys = ['Delete', 'Backspace'];
const multiSelectionKeys = ['Shift', 'Meta', 'Control'];

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
  const canvasEvents = useCanvasEvents(graph, selection, visitedEdges, setHistory, setSelection);
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

  const adding = useBlockAdding(flow, canvasRef, readOnly, setHistory, setSelection);
  const { selectOnly, viewCentre, addBlock, pendingLink, closePicker, pendingFollow, followAdd } = adding;
  const clipboard = useClipboard(graph, selection, readOnly, setHistory, setSelection, selectOnly, viewCentre);
  const { updateNodeData, updateNodeLabel, updateSettings } = useNodeEditing(setHistory);



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
    ['mod+d', () => clipboard.duplicateSelection()],
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
  }, [selection, sideShown, selectedId, narrow, flow, insets, pendingFollow, followAdd]);

  return (
    <EditorContextProvider planId={loaded.id} tenantId={loaded.tenant_id} readOnly={readOnly} decorations={decorations} blockData={blockData} actions={readOnly ? undefined : adding.actions}>
      <div className={classes.shell} data-whole-window={wholeWindow || undefined} data-testid="editor-shell">
        {narrow && (
          <Alert color="blue" p="xs" mb="xs" data-testid="editor-narrow">
            <Text size="xs">{t('editor.narrow')}</Text>
          </Alert>
        )}
        <EditorHeader
          name={loaded.name}
          testing={testing !== null}
          onToggleTest={() => (testing ? closeTest() : setTesting({}))}
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
          onDuplicate={clipboard.duplicateSelection}
          onRemove={clipboard.removeSelection}
          onCopy={() => {
            const text = clipboard.copySelection();
            if (text) void navigator.clipboard.writeText(text).then(() => toast('success', t('editor.copied')));
          }}
          onPaste={() =>
            void navigator.clipboard.readText().then((text) => {
              if (!clipboard.pasteFragment(text, { at: viewCentre() })) toast('warning', t('editor.nothingToPaste'));
            })
          }
        />
        <div className={classes.body}>
          {!readOnly && paletteOpen && <Palette onAdd={(type) => addBlock(type)} />}
          <div className={classes.canvas} ref={canvasRef} onDragOver={(event) => event.preventDefault()} onDrop={adding.onDrop} data-testid="plan-canvas">
            {opening && (
              <ReactFlow<BlockFlowNode>
                nodes={nodes}
                edges={canvasEvents.shownEdges}
                nodeTypes={nodeTypes}
                edgeTypes={edgeTypes}
                {...canvasEvents.handlers}
                onConnectEnd={adding.onConnectEnd}
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
                <OverviewEdges edges={canvasEvents.edges} />
                <FitOnceMeasured edges={loaded.edges} inset={insets} />
                {testing && testedNodeId !== undefined && <FollowNode nodeId={testedNodeId} />}
              </ReactFlow>
            )}
            {!readOnly && <FoldButton side="start" open={paletteOpen} onToggle={() => setPaletteOpen(!paletteOpen)} />}
            {!testing && <FoldButton side="end" open={sideOpen} onToggle={() => setSideOpen(!sideOpen)} />}
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
        <Suspense fallback={null}>
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
        </Suspense>
      )}
    </EditorContextProvider>
  );
}


import { ActionIcon, Alert, Badge, Center, Group, Loader, Paper, Slider, Stack, Table, Text, Title, Tooltip } from '@mantine/core';
import { IconPlayerPause, IconPlayerPlay, IconPlayerTrackNext, IconPlayerTrackPrev } from '@tabler/icons-react';
import { useQuery } from '@tanstack/react-query';
import type { CallReportRecord } from '@voxplan/contracts';
import type { VisualPlanDocument, VisualPlanVersionDocument } from '@voxplan/contracts/visual-plan';
import { type ReactNode, useEffect, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api, ApiError } from '../../lib/api/client.ts';
import { errorText } from '../../lib/errors.ts';
import { formatDuration } from '../../lib/format.ts';
import { DecorationStore } from '../visual-plans/editor/decorations.ts';
import { EditorContextProvider, useEditorContext } from '../visual-plans/editor/editor-context.tsx';
import { ReadOnlyCanvas } from '../visual-plans/editor/ReadOnlyCanvas.tsx';
import { type RunNaming, runBlockName, runExitLabel } from '../visual-plans/editor/test-panel/run-texts.ts';
import { replayView } from './report-path.ts';

/** How long the replay stays on a step while playing. */
const PLAY_STEP_MS = 1000;

type PlanGraph = Pick<VisualPlanVersionDocument, 'nodes' | 'edges'>;

/**
 * The graph of the plan version that ran: a published version, or the draft when the session ran
 * the draft at that version (the simulator runs drafts) and no save came since. Null when neither
 * is kept any more.
 */
async function versionGraph(planId: number, version: number, tenantId: number, signal: AbortSignal): Promise<PlanGraph | null> {
  try {
    return await api.get<VisualPlanVersionDocument>(`/visual-plans/${planId}/versions/${version}`, { signal, tenantId });
  } catch (error) {
    if (!(error instanceof ApiError) || error.status !== 404) throw error;
  }
  try {
    const draft = await api.get<VisualPlanDocument>(`/visual-plans/${planId}/document`, { signal, tenantId });
    return draft.version === version ? draft : null;
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) return null;
    throw error;
  }
}

/** The graph of the plan version a report ran (shared by its path, summary and keys: one request). */
function useReportGraph(report: CallReportRecord) {
  return useQuery({
    queryKey: ['/visual-plans', 'version', report.plan_id, report.plan_version, 'report'],
    queryFn: ({ signal }) => versionGraph(report.plan_id, report.plan_version, report.tenant_id, signal),
    staleTime: Infinity,
  });
}

/**
 * How a report names a block: as the canvas of the version that ran shows it ("Destination ·
 * Sales"). A block of another plan (reached through call_plan) is named by its type.
 */
export function useReportNaming(report: CallReportRecord): (planId: number) => RunNaming {
  const graph = useReportGraph(report);
  const { language, referenceName } = useEditorContext();
  const nodes = graph.data?.nodes ?? [];
  return (planId) => ({ language, referenceName, nodes: planId === report.plan_id ? nodes : [] });
}

/**
 * What naming a report's blocks and records needs (the tenant's records by name), around the
 * report's page; the replay's canvas reads it too.
 */
export function ReportContext({ report, children }: { report: Pick<CallReportRecord, 'plan_id' | 'tenant_id'>; children: ReactNode }) {
  const [decorations] = useState(() => new DecorationStore());
  return (
    <EditorContextProvider planId={report.plan_id} tenantId={report.tenant_id} readOnly decorations={decorations}>
      {children}
    </EditorContextProvider>
  );
}

/**
 * The report's path over the plan version that ran, replayable step by step: the canvas lights
 * the blocks entered so far and the exits taken, the current block in its own colour; the steps
 * list gives each step's time and exit, and notes the blocks that ran in another plan (call_plan).
 * Inside a ReportContext.
 */
export function ReportReplay({ report }: { report: CallReportRecord }) {
  const { t } = useTranslation();
  const graph = useReportGraph(report);
  return (
    <Stack gap="sm">
      <Title order={3}>{t('reports.detail.path')}</Title>
      {graph.isError && <Alert color="red">{errorText(graph.error, t)}</Alert>}
      {graph.isPending && (
        <Center h={200}>
          <Loader aria-label={t('common.loading')} />
        </Center>
      )}
      {graph.isSuccess && <Replay report={report} graph={graph.data} />}
    </Stack>
  );
}

function Replay({ report, graph }: { report: CallReportRecord; graph: PlanGraph | null }) {
  const { t } = useTranslation();
  const { referenceName } = useEditorContext();
  const naming = useReportNaming(report);
  const steps = report.nodes;
  const [step, setStep] = useState(0);
  const [playing, setPlaying] = useState(false);
  useEffect(() => {
    if (!playing) return;
    const timer = setInterval(() => setStep((current) => current + 1), PLAY_STEP_MS);
    return () => clearInterval(timer);
  }, [playing]);
  // Playing stops at the last step (and starts again from the first when started there).
  useEffect(() => {
    if (playing && step >= steps.length - 1) setPlaying(false);
  }, [playing, step, steps.length]);

  const planNodeIds = useMemo(() => graph?.nodes.map((node) => node.id) ?? [], [graph]);
  const view = useMemo(() => replayView(report, step, graph?.edges ?? [], planNodeIds), [report, step, graph, planNodeIds]);
  const started = Date.parse(report.start_time);
  const at = (iso: string) => `+${formatDuration(Date.parse(iso) - started)}`;

  if (steps.length === 0) {
    return (
      <Text c="dimmed" size="sm">
        {t('reports.detail.noSteps')}
      </Text>
    );
  }
  const here = steps[Math.min(step, steps.length - 1)]!;
  const go = (next: number) => {
    setPlaying(false);
    setStep(Math.max(0, Math.min(steps.length - 1, next)));
  };

  return (
    <>
      {graph ? (
        <Paper withBorder h={460} style={{ overflow: 'hidden' }} data-testid="report-canvas">
          <ReadOnlyCanvas nodes={graph.nodes} edges={graph.edges} nodeDecorations={view.marks} highlightedEdges={view.edgeIds} focusNodeId={view.current} />
        </Paper>
      ) : (
        <Alert color="yellow" data-testid="report-version-gone">
          {t('reports.detail.versionGone', { version: report.plan_version })}
        </Alert>
      )}
      <Group gap="xs" wrap="nowrap" data-testid="report-replay">
        <Tooltip label={t('reports.replay.previous')}>
          <ActionIcon variant="default" size="lg" aria-label={t('reports.replay.previous')} onClick={() => go(step - 1)} disabled={step === 0} data-testid="replay-previous">
            <IconPlayerTrackPrev size={18} />
          </ActionIcon>
        </Tooltip>
        <Tooltip label={playing ? t('reports.replay.pause') : t('reports.replay.play')}>
          <ActionIcon
            variant="filled"
            size="lg"
            aria-label={playing ? t('reports.replay.pause') : t('reports.replay.play')}
            onClick={() => {
              if (!playing && step >= steps.length - 1) setStep(0);
              setPlaying(!playing);
            }}
            disabled={steps.length < 2}
            data-testid="replay-play"
          >
            {playing ? <IconPlayerPause size={18} /> : <IconPlayerPlay size={18} />}
          </ActionIcon>
        </Tooltip>
        <Tooltip label={t('reports.replay.next')}>
          <ActionIcon variant="default" size="lg" aria-label={t('reports.replay.next')} onClick={() => go(step + 1)} disabled={step >= steps.length - 1} data-testid="replay-next">
            <IconPlayerTrackNext size={18} />
          </ActionIcon>
        </Tooltip>
        <Slider
          style={{ flex: 1 }}
          min={1}
          max={Math.max(steps.length, 2)}
          disabled={steps.length < 2}
          value={step + 1}
          onChange={(value) => go(value - 1)}
          label={(value) => t('reports.replay.step', { step: value, count: steps.length })}
          thumbLabel={t('reports.replay.slider')}
          data-testid="replay-slider"
        />
        <Text size="sm" style={{ whiteSpace: 'nowrap' }} data-testid="replay-position">
          {t('reports.replay.step', { step: step + 1, count: steps.length })} · {at(here.at)}
        </Text>
      </Group>
      <Table striped highlightOnHover verticalSpacing={4} aria-label={t('reports.detail.steps')} data-testid="report-steps">
        <Table.Thead>
          <Table.Tr>
            <Table.Th w={40}>{t('reports.detail.stepNumber')}</Table.Th>
            <Table.Th>{t('reports.detail.time')}</Table.Th>
            <Table.Th>{t('reports.detail.block')}</Table.Th>
            <Table.Th>{t('reports.detail.exit')}</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {steps.map((entry, index) => {
            const elsewhere = entry.plan_id !== report.plan_id;
            return (
              <Table.Tr
                key={index}
                onClick={() => go(index)}
                style={{ cursor: 'pointer' }}
                bg={index === step ? 'var(--mantine-primary-color-light)' : undefined}
                aria-current={index === step ? 'step' : undefined}
                data-testid="report-step"
                data-node-id={entry.node_id}
              >
                <Table.Td>{index + 1}</Table.Td>
                <Table.Td>{at(entry.at)}</Table.Td>
                <Table.Td>
                  <Group gap={6}>
                    <Text size="sm">{runBlockName(entry.node_id, entry.type, naming(entry.plan_id))}</Text>
                    {elsewhere && (
                      <Badge size="sm" variant="light" color="grape" data-testid="report-step-elsewhere">
                        {t('reports.detail.otherPlan', { plan: referenceName('plan', entry.plan_id) ?? `#${entry.plan_id}` })}
                      </Badge>
                    )}
                  </Group>
                </Table.Td>
                <Table.Td>{entry.exit === null ? t('reports.detail.endedHere') : runExitLabel(entry.node_id, entry.type, entry.exit, naming(entry.plan_id))}</Table.Td>
              </Table.Tr>
            );
          })}
        </Table.Tbody>
      </Table>
    </>
  );
}

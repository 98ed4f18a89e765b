import '@xyflow/react/dist/style.css';
import { Alert, Center, Grid, Group, Loader, Paper, Progress, Select, Stack, Text, Title, UnstyledButton } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { blockDefinition } from '@voxplan/blocks/definitions';
import type { StatsPlanDetail } from '@voxplan/contracts';
import type { VisualPlan, VisualPlanDocument, VisualPlanVersionDocument } from '@voxplan/contracts/visual-plan';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api, type QueryValue } from '../../lib/api/client.ts';
import { errorText } from '../../lib/errors.ts';
import { formatNumber } from '../../lib/format.ts';
import { DecorationStore, type NodeMark } from '../visual-plans/editor/decorations.ts';
import { EditorContextProvider } from '../visual-plans/editor/editor-context.tsx';
import { ReadOnlyCanvas } from '../visual-plans/editor/ReadOnlyCanvas.tsx';
import { digitsByMenu, dropOffByBlock, heatOf } from './plan-heat.ts';
import { useStats } from './use-stats.ts';

type MenuWording = 'voice' | 'chat' | 'both';

/** Whether the plan's menus were answered by keys (calls), by options (chats), or both, over the period. */
function menuWording(figures: StatsPlanDetail['figures'] | undefined): MenuWording {
  if (!figures || figures.chats === 0) return 'voice';
  return figures.calls === 0 ? 'chat' : 'both';
}

const percentText = (share: number, language: string) => formatNumber(share, language, { style: 'percent', maximumFractionDigits: 0 });

/** The graph the plan's calls run: `version` when one is picked, else its newest published version, else its draft. */
function usePlanGraph(planId: number, version: number | undefined) {
  return useQuery({
    queryKey: ['/visual-plans', planId, 'running-graph', version],
    queryFn: async ({ signal }) => {
      const plan = await api.get<VisualPlan>(`/visual-plans/${planId}`, { signal });
      const shown = version ?? plan.published_version;
      const document =
        shown === null
          ? await api.get<VisualPlanDocument>(`/visual-plans/${planId}/document`, { signal })
          : await api.get<VisualPlanVersionDocument>(`/visual-plans/${planId}/versions/${shown}`, { signal });
      return { plan, nodes: document.nodes, edges: document.edges };
    },
    staleTime: 60_000,
  });
}

/**
 * One plan over the period: where its sessions ended, as a heat map on its read-only canvas (loaded
 * with the canvas, apart from the dashboard), and the keys pressed (or options chosen, in a chat) at each menu.
 */
export default function PlanDetail({ planId, query, refreshSeconds }: { planId: number; query: Record<string, QueryValue>; refreshSeconds: number }) {
  const { t, i18n } = useTranslation();
  const language = i18n.language;
  // A version picked when the plan ran more than one in the period (a rollout, a publish): its figures, on its own canvas.
  const [version, setVersion] = useState<number>();
  const detail = useStats<StatsPlanDetail>(`/stats/plans/${planId}`, version === undefined ? query : { ...query, plan_version: version }, refreshSeconds);
  const graph = usePlanGraph(planId, version);
  const versions = detail.data?.versions ?? [];
  const [decorations] = useState(() => new DecorationStore());
  const [focused, setFocused] = useState<string>();
  const percent = (share: number) => percentText(share, language);

  const marks = useMemo(() => {
    if (!detail.data || !graph.data) return undefined;
    const byBlock = dropOffByBlock(detail.data);
    const result: Record<string, NodeMark> = {};
    for (const node of graph.data.nodes) {
      const dropOff = byBlock.get(node.id);
      result[node.id] = !dropOff
        ? { tone: 'dim', title: t('dashboard.plan.notReached') }
        : {
            heat: heatOf(dropOff, byBlock),
            ...(dropOff.ended > 0 && { badge: percentText(dropOff.share, language) }),
            title: t('dashboard.plan.blockTitle', {
              entered: formatNumber(dropOff.entered, language),
              ended: formatNumber(dropOff.ended, language),
              percent: percentText(dropOff.share, language),
            }),
          };
    }
    return result;
  }, [detail.data, graph.data, t, language]);

  // Menus wait for the plan's graph too, so a menu shows the name the person gave it from its first frame, not "Menu" first.
  const menus = detail.data && graph.data ? digitsByMenu(detail.data) : [];
  const nodeOf = (nodeId: string) => graph.data?.nodes.find((node) => node.id === nodeId);
  const lang = language === 'pt' ? 'pt' : 'en';
  // A chat's customer chooses an option; a caller presses keys. The period's sessions say which the plan ran.
  const wording = menuWording(detail.data?.figures);
  const error = detail.error ?? graph.error;

  return (
    <Stack data-testid="plan-detail" data-plan-id={planId}>
      {error && <Alert color="red">{errorText(error, t)}</Alert>}
      {(versions.length > 1 || version !== undefined) && (
        <Select
          label={t('dashboard.plan.version')}
          w={220}
          allowDeselect={false}
          data={[{ value: '', label: t('dashboard.plan.allVersions') }, ...versions.map((each) => ({ value: String(each), label: t('dashboard.plan.versionNumber', { version: each }) }))]}
          value={version === undefined ? '' : String(version)}
          onChange={(value) => setVersion(value ? Number(value) : undefined)}
          data-testid="plan-version"
        />
      )}
      <Grid>
        <Grid.Col span={{ base: 12, lg: 8 }}>
          <Paper withBorder h={480} style={{ overflow: 'hidden' }} aria-label={t('dashboard.plan.heatMap')} role="region">
            {graph.data && marks ? (
              <EditorContextProvider planId={planId} tenantId={graph.data.plan.tenant_id} readOnly decorations={decorations}>
                <ReadOnlyCanvas nodes={graph.data.nodes} edges={graph.data.edges} nodeDecorations={marks} focusNodeId={focused} />
              </EditorContextProvider>
            ) : (
              !error && (
                <Center h="100%">
                  <Loader aria-label={t('common.loading')} />
                </Center>
              )
            )}
          </Paper>
          <Text size="xs" c="dimmed" mt={4}>
            {t('dashboard.plan.heatMapHint')}
          </Text>
        </Grid.Col>
        <Grid.Col span={{ base: 12, lg: 4 }}>
          <Title order={4} size="h5" mb="xs">
            {t(`dashboard.plan.digits.${wording}`)}
          </Title>
          {detail.data && graph.data && menus.length === 0 && (
            <Text size="sm" c="dimmed">
              {t(`dashboard.plan.noDigits.${wording}`)}
            </Text>
          )}
          <Stack gap="sm" data-testid="plan-digits">
            {menus.map((menu) => {
              const node = nodeOf(menu.nodeId);
              // The name the person gave the block; else its kind, as the canvas shows an unnamed block. Never its id.
              const name = node?.label ?? (wording === 'chat' ? t('dashboard.plan.menu') : ((node && blockDefinition(node.type)?.texts[lang].name) ?? t('dashboard.plan.menu')));
              return (
                <Paper withBorder p="sm" key={menu.nodeId} data-testid="plan-menu" data-node-id={menu.nodeId}>
                  <UnstyledButton onClick={() => setFocused(menu.nodeId)} fw={600} fz="sm">
                    {name}
                  </UnstyledButton>
                  <Stack gap={4} mt={6}>
                    {menu.keys.map((key) => (
                      <div key={key.digits} data-testid="plan-menu-key" data-digits={key.digits}>
                        <Group justify="space-between" gap="xs">
                          <Text size="sm" ff="monospace">
                            {key.digits}
                          </Text>
                          <Text size="sm">
                            {t('dashboard.plan.keyCount', { count: key.count, formatted: formatNumber(key.count, language), percent: percent(key.count / menu.total) })}
                          </Text>
                        </Group>
                        <Progress value={(key.count / menu.total) * 100} size="sm" aria-hidden />
                      </div>
                    ))}
                  </Stack>
                </Paper>
              );
            })}
          </Stack>
        </Grid.Col>
      </Grid>
    </Stack>
  );
}

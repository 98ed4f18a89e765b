import { Stack, Table, Title } from '@mantine/core';
import { useInterval } from '@mantine/hooks';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import type { HandOffFigures as Figures, StatsHandOffs } from '@voxplan/contracts';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api, type QueryValue } from '../../lib/api/client.ts';
import { useAuth } from '../../lib/auth.tsx';
import { formatDuration, formatNumber } from '../../lib/format.ts';
import { FigureTable } from './FigureTable.tsx';

/**
 * The period's hand-offs to people, per queue and per agent (`/stats/handoffs`, docs/handoff.md
 * "Outcomes"). Keyed under `/conversations`, so that the console's conversations stream asks it
 * again at each taken, closed or waiting chat; a wait still running counts on each second.
 */
export function HandOffFigures({ query, refreshSeconds }: { query: Record<string, QueryValue> | undefined; refreshSeconds: number }) {
  const { t, i18n } = useTranslation();
  const { tenantId } = useAuth();
  const stats = useQuery({
    queryKey: ['/conversations', 'handoff-stats', tenantId, query],
    queryFn: ({ signal }) => api.get<StatsHandOffs>('/stats/handoffs', { query, signal }),
    placeholderData: keepPreviousData,
    refetchInterval: refreshSeconds > 0 ? refreshSeconds * 1000 : false,
    enabled: query !== undefined,
    retry: false,
  });
  const [now, setNow] = useState(Date.now);
  useInterval(() => setNow(Date.now()), 1000, { autoInvoke: true });
  const data = stats.data;
  if (!data || data.totals.handoffs === 0) return null;
  const since = Math.max(0, (now - Date.parse(data.at)) / 1000);
  const language = i18n.language;
  const count = (value: number) => formatNumber(value, language);
  const duration = (value: number | null) => (value === null ? '—' : formatDuration(value * 1000));
  // A chat still waiting makes the longest wait grow until the next answer.
  const longest = (figures: Figures) => (figures.longest_wait_s === null ? null : figures.longest_wait_s + (figures.waiting_now > 0 ? since : 0));
  const headings = (first: string) => [
    { label: first },
    { label: t('dashboard.handoffs.handoffs'), numeric: true },
    { label: t('dashboard.handoffs.taken'), numeric: true },
    { label: t('dashboard.handoffs.missed'), numeric: true },
    { label: t('dashboard.handoffs.abandoned'), numeric: true },
    { label: t('dashboard.handoffs.waitingNow'), numeric: true },
    { label: t('dashboard.handoffs.averageWait'), numeric: true },
    { label: t('dashboard.handoffs.longestWait'), numeric: true },
    { label: t('dashboard.handoffs.averageHandling'), numeric: true },
  ];
  const row = (key: string, name: string, figures: Figures, testId: string) => (
    <Table.Tr key={key} data-testid={testId} data-name={name}>
      <Table.Td>{name}</Table.Td>
      <Table.Td ta="right" data-figure="handoffs">{count(figures.handoffs)}</Table.Td>
      <Table.Td ta="right" data-figure="taken">{count(figures.taken)}</Table.Td>
      <Table.Td ta="right" data-figure="missed">{count(figures.missed)}</Table.Td>
      <Table.Td ta="right" data-figure="abandoned">{count(figures.abandoned)}</Table.Td>
      <Table.Td ta="right" data-figure="waiting_now">{count(figures.waiting_now)}</Table.Td>
      <Table.Td ta="right" data-figure="average_wait">{duration(figures.average_wait_s)}</Table.Td>
      <Table.Td ta="right" data-figure="longest_wait">{duration(longest(figures))}</Table.Td>
      <Table.Td ta="right" data-figure="average_handling">{duration(figures.average_handling_s)}</Table.Td>
    </Table.Tr>
  );
  return (
    <section aria-labelledby="dashboard-handoffs">
      <Title order={3} size="h4" mb="sm" id="dashboard-handoffs">
        {t('dashboard.handoffs.title')}
      </Title>
      <Stack gap="sm">
      <FigureTable testId="dashboard-handoffs-queues" isEmpty={false} emptyText="" headings={headings(t('dashboard.handoffs.queue'))}>
        {data.queues.map((queue) => row(`queue-${queue.id}`, queue.name, queue.figures, 'handoff-queue'))}
        {row('total', t('dashboard.handoffs.total'), data.totals, 'handoff-total')}
      </FigureTable>
      {data.agents.length > 0 && (
        <FigureTable testId="dashboard-handoffs-agents" isEmpty={false} emptyText="" headings={headings(t('dashboard.handoffs.agent'))}>
          {data.agents.map((agent) => row(`agent-${agent.id}`, agent.name, agent.figures, 'handoff-agent'))}
        </FigureTable>
      )}
      </Stack>
    </section>
  );
}

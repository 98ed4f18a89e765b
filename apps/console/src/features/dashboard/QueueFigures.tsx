import { Anchor, Table, Title } from '@mantine/core';
import { useInterval } from '@mantine/hooks';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { formatDuration, formatNumber } from '../../lib/format.ts';
import { useConversationSummary } from '../conversations/use-summary.ts';
import { FigureTable } from './FigureTable.tsx';

/**
 * The chat queues now (`/conversations/summary`): chats waiting, the longest wait and the agents
 * online, per queue. Shown once the tenant has a queue; asked again with the dashboard's refresh
 * and at each conversation event. The longest wait counts on each second between answers.
 */
export function QueueFigures({ refreshSeconds }: { refreshSeconds: number }) {
  const { t, i18n } = useTranslation();
  const summary = useConversationSummary(refreshSeconds > 0 ? refreshSeconds : 30);
  const [now, setNow] = useState(Date.now);
  useInterval(() => setNow(Date.now()), 1000, { autoInvoke: true });
  const queues = summary.data?.queues ?? [];
  if (queues.length === 0) return null;
  const since = Math.max(0, now - summary.dataUpdatedAt);
  return (
    <section aria-labelledby="dashboard-queues">
      <Title order={3} size="h4" mb="sm" id="dashboard-queues">
        <Anchor component={Link} to="/conversations" inherit>
          {t('dashboard.queues.title')}
        </Anchor>
      </Title>
      <FigureTable
        testId="dashboard-queues-table"
        isEmpty={false}
        emptyText=""
        headings={[
          { label: t('dashboard.queues.queue') },
          { label: t('dashboard.queues.waiting'), numeric: true },
          { label: t('dashboard.queues.longestWait'), numeric: true },
          { label: t('dashboard.queues.agentsOnline'), numeric: true },
        ]}
      >
        {queues.map((queue) => (
          <Table.Tr key={queue.id} data-testid="dashboard-queue">
            <Table.Td>{queue.name}</Table.Td>
            <Table.Td ta="right">{formatNumber(queue.waiting, i18n.language)}</Table.Td>
            <Table.Td ta="right">{queue.waiting > 0 ? formatDuration(queue.longest_wait_s * 1000 + since) : '—'}</Table.Td>
            <Table.Td ta="right">{formatNumber(queue.agents_online, i18n.language)}</Table.Td>
          </Table.Tr>
        ))}
      </FigureTable>
    </section>
  );
}

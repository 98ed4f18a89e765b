import { Badge, Group, SimpleGrid, Table, Text, Title } from '@mantine/core';
import { useInterval } from '@mantine/hooks';
import { IconMessages, IconPhone } from '@tabler/icons-react';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { formatDuration, formatNumber } from '../../lib/format.ts';
import { countByChannel, newPerSecond } from './live-state.ts';
import { useBlockName, usePlanNames } from './names.ts';
import { Figure } from './Figure.tsx';
import { FigureTable } from './FigureTable.tsx';
import { useLiveStats } from './use-live-stats.ts';

/** The sessions running now, pushed by the server, with their durations ticking. */
export function LiveSessions() {
  const { t, i18n } = useTranslation();
  const { state, status } = useLiveStats();
  const planNames = usePlanNames();
  const blockName = useBlockName();
  const [now, setNow] = useState(() => Date.now());
  useInterval(() => setNow(Date.now()), 1000, { autoInvoke: true });
  const counts = countByChannel(state);
  const sessions = [...state.sessions.values()];
  const language = i18n.language;
  // The server lists the most recent only (LIVE_SESSIONS_LIMIT): say how many run in all.
  const isCapped = state.running.total > sessions.length;

  return (
    <section aria-labelledby="dashboard-live">
      <Group justify="space-between" mb="sm">
        <Title order={3} size="h4" id="dashboard-live">
          {t('dashboard.live.title')}
        </Title>
        <Badge color={status === 'live' ? 'teal' : 'gray'} variant="dot" data-testid="live-status" data-status={status}>
          {t(`dashboard.live.status.${status}`)}
        </Badge>
      </Group>
      <SimpleGrid cols={{ base: 1, xs: 3 }} mb="sm">
        <Figure testId="live-calls" label={t('dashboard.live.calls')} value={formatNumber(counts.calls, language)} icon={<IconPhone size={18} />} />
        <Figure testId="live-chats" label={t('dashboard.live.chats')} value={formatNumber(counts.chats, language)} icon={<IconMessages size={18} />} />
        <Figure
          testId="live-per-second"
          label={t('dashboard.live.perSecond')}
          value={formatNumber(newPerSecond(state, now), language, { maximumFractionDigits: 2 })}
          hint={t('dashboard.live.perSecondHint', { seconds: state.snapshot.windowS })}
        />
      </SimpleGrid>
      {isCapped && (
        <Text size="sm" c="dimmed" mb="xs" data-testid="live-shown">
          {t('dashboard.live.shown', { shown: formatNumber(sessions.length, language), total: formatNumber(state.running.total, language) })}
        </Text>
      )}
      <FigureTable
        testId="live-sessions"
        striped
        headings={[
          { label: t('dashboard.live.caller') },
          { label: t('dashboard.live.number') },
          { label: t('dashboard.live.plan') },
          { label: t('dashboard.live.channel') },
          { label: t('dashboard.live.block') },
          { label: t('dashboard.live.duration') },
        ]}
        isEmpty={sessions.length === 0}
        emptyText={t('dashboard.live.none')}
        emptyTestId="live-empty"
      >
        {sessions.map((session) => (
          <Table.Tr key={session.session_id} data-testid="live-session" data-session-id={session.session_id}>
            <Table.Td>{session.caller || '—'}</Table.Td>
            <Table.Td>{session.called || '—'}</Table.Td>
            <Table.Td>{planNames.get(session.plan_id) ?? `#${session.plan_id}`}</Table.Td>
            <Table.Td>{t(`dashboard.live.channels.${session.channel}`)}</Table.Td>
            <Table.Td data-testid="live-session-block">{blockName(session.block_type) ?? '—'}</Table.Td>
            <Table.Td>{formatDuration(Math.max(0, now - Date.parse(session.started_at)))}</Table.Td>
          </Table.Tr>
        ))}
      </FigureTable>
    </section>
  );
}

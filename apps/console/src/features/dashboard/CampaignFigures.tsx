import { Anchor, Stack, Table, Text, Title } from '@mantine/core';
import type { Campaign } from '@voxplan/contracts';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { formatNumber } from '../../lib/format.ts';
import { ProgressBar, progressText } from '../campaigns/CampaignProgressView.tsx';
import { StatusBadge } from '../campaigns/StatusBadge.tsx';
import { useActiveCampaigns, useCampaignProgress } from '../campaigns/use-campaigns.ts';
import { FigureTable } from './FigureTable.tsx';

function CampaignRow({ campaign }: { campaign: Campaign }) {
  const { i18n } = useTranslation();
  const progress = useCampaignProgress(campaign).data;
  const number = (value: number | undefined) => (progress ? formatNumber(value ?? 0, i18n.language) : '—');
  return (
    <Table.Tr data-testid="dashboard-campaign">
      <Table.Td>
        <Anchor component={Link} to={`/campaigns/${campaign.id}`} size="sm">
          {campaign.name}
        </Anchor>
      </Table.Td>
      <Table.Td>
        <StatusBadge status={campaign.status} />
      </Table.Td>
      <Table.Td miw={140}>
        <Stack gap={4}>
          <Text size="sm" data-testid="dashboard-campaign-progress">
            {progressText(progress, i18n.language)}
          </Text>
          <ProgressBar progress={progress} size="sm" />
        </Stack>
      </Table.Td>
      <Table.Td ta="right">{number(progress?.pending)}</Table.Td>
      <Table.Td ta="right">{number(progress?.in_progress)}</Table.Td>
      <Table.Td ta="right" data-testid="dashboard-campaign-answered">
        {number(progress?.by_outcome.answer)}
      </Table.Td>
    </Table.Tr>
  );
}

/**
 * The campaigns calling now, or paused: a row each with its progress, live while it runs. Shown
 * only when there is one, as the chat queues are.
 */
export function CampaignFigures({ refreshSeconds }: { refreshSeconds: number }) {
  const { t } = useTranslation();
  const campaigns = useActiveCampaigns(refreshSeconds).data ?? [];
  if (campaigns.length === 0) return null;
  return (
    <section aria-labelledby="dashboard-campaigns">
      <Title order={3} size="h4" mb="sm" id="dashboard-campaigns">
        <Anchor component={Link} to="/campaigns" inherit>
          {t('dashboard.campaigns.title')}
        </Anchor>
      </Title>
      <FigureTable
        testId="dashboard-campaigns-table"
        isEmpty={false}
        emptyText=""
        headings={[
          { label: t('dashboard.campaigns.campaign') },
          { label: t('campaigns.status') },
          { label: t('campaigns.progress.title') },
          { label: t('campaigns.progress.pending'), numeric: true },
          { label: t('campaigns.progress.inProgress'), numeric: true },
          { label: t('campaigns.results.answer'), numeric: true },
        ]}
      >
        {campaigns.map((campaign) => (
          <CampaignRow key={campaign.id} campaign={campaign} />
        ))}
      </FigureTable>
    </section>
  );
}

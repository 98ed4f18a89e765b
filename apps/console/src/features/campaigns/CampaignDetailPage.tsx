import { Anchor, Button, Center, Grid, Group, Loader, Paper, Stack, Title } from '@mantine/core';
import { IconArrowLeft, IconEdit, IconEye, IconFileSearch, IconUpload } from '@tabler/icons-react';
import { useQuery } from '@tanstack/react-query';
import { type Campaign, type CampaignInvalidRow, campaignRetryOutcomes } from '@voxplan/contracts';
import { type ReactNode, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useParams } from 'react-router';
import { api } from '../../lib/api/client.ts';
import { useAuth, useCanWrite } from '../../lib/auth.tsx';
import { formatDateTime, formatNumber } from '../../lib/format.ts';
import { PageError } from '../../lib/PageError.tsx';
import { Facts } from '../visual-plans/editor/test-panel/RunDetails.tsx';
import { campaignReportsLink } from '../reports/report-filter.ts';
import { CampaignControls } from './CampaignControls.tsx';
import { CampaignFormModal } from './CampaignFormModal.tsx';
import { CampaignProgressView } from './CampaignProgressView.tsx';
import { CampaignResults } from './CampaignResults.tsx';
import { StatusBadge } from './StatusBadge.tsx';
import { ContactsUploadModal } from './ContactsUploadModal.tsx';
import { InvalidRowsTable } from './InvalidRowsTable.tsx';
import { CAMPAIGNS, isFinished } from './status.ts';
import { useCampaign, useCampaignProgress } from './use-campaigns.ts';

function Section({ title, children, testId, actions }: { title: string; children: ReactNode; testId: string; actions?: ReactNode }) {
  return (
    <Paper withBorder p="md" data-testid={testId}>
      <Group justify="space-between" mb="sm" gap="xs">
        <Title order={3} size="h4">
          {title}
        </Title>
        {actions}
      </Group>
      {children}
    </Paper>
  );
}

/** The campaign as set up: plan, number, schedule, pace, retries and machine detection. */
function Settings({ campaign }: { campaign: Campaign }) {
  const { t, i18n } = useTranslation();
  const number = (value: number) => formatNumber(value, i18n.language);
  const retries = (
    <Stack gap={0} component="span">
      {campaignRetryOutcomes.map((outcome) => (
        <span key={outcome}>
          {campaign.retries[outcome].attempts === 0
            ? t('campaigns.noRetry', { outcome: t(`campaigns.outcomes.${outcome}`) })
            : t('campaigns.retryFact', { outcome: t(`campaigns.outcomes.${outcome}`), count: campaign.retries[outcome].attempts, minutes: number(campaign.retries[outcome].delay_min) })}
        </span>
      ))}
    </Stack>
  );
  const rows: Array<[string, ReactNode]> = [
    [t('campaigns.plan'), campaign.plan_name],
    [t('campaigns.fromNumber'), campaign.number],
    [t('campaigns.schedule'), campaign.date_range_name ?? t('campaigns.anyTime')],
    [t('campaigns.pace'), t('campaigns.paceFact', { count: campaign.calls_per_second, cps: number(campaign.calls_per_second), max: number(campaign.max_concurrent) })],
    [t('campaigns.retries'), retries],
    [t('campaigns.machineDetection'), t(campaign.machine_detection ? 'common.yes' : 'common.no')],
    ...(campaign.started_time ? [[t('campaigns.startedTime'), formatDateTime(campaign.started_time, i18n.language)] as [string, ReactNode]] : []),
    ...(campaign.finished_time ? [[t('campaigns.finishedTime'), formatDateTime(campaign.finished_time, i18n.language)] as [string, ReactNode]] : []),
  ];
  return <Facts rows={rows} label={t('campaigns.settings')} testId="campaign-settings" />;
}

/** The lines of its lists that were not taken (all of them are kept by the server). */
function InvalidRows({ campaign, count }: { campaign: Campaign; count: number }) {
  const { t } = useTranslation();
  const { tenantId } = useAuth();
  const rows = useQuery({
    queryKey: [CAMPAIGNS, tenantId, 'invalid-rows', campaign.id, count],
    queryFn: ({ signal }) =>
      api.get<CampaignInvalidRow[]>(`${CAMPAIGNS}/${campaign.id}/invalid-rows`, { query: { filter: { order: ['line ASC'], limit: 100 } }, signal }),
  });
  if (!rows.data) return null;
  return (
    <Section title={t('campaigns.contacts.invalidTitle')} testId="campaign-invalid-rows">
      <InvalidRowsTable rows={rows.data} total={count} />
    </Section>
  );
}

/** `/campaigns/<id>`: the campaign's settings and controls, its contacts, its progress live, its results. */
export default function CampaignDetailPage() {
  const { t } = useTranslation();
  const id = Number(useParams().campaignId);
  const canWrite = useCanWrite();
  const campaign = useCampaign(id);
  const progress = useCampaignProgress(campaign.data);
  const [dialog, setDialog] = useState<'edit' | 'contacts' | null>(null);

  if (campaign.isError) return <PageError error={campaign.error} onRetry={() => void campaign.refetch()} />;
  if (!campaign.data) {
    return (
      <Center py="xl">
        <Loader />
      </Center>
    );
  }
  const current = campaign.data;
  const invalidCount = progress.data?.invalid_rows ?? 0;

  return (
    <Stack gap="md">
      <Anchor component={Link} to=".." relative="path" size="sm">
        <Group gap={4}>
          <IconArrowLeft size={14} />
          {t('campaigns.back')}
        </Group>
      </Anchor>
      <Group justify="space-between" gap="sm">
        <Group gap="sm">
          <Title order={2} data-testid="campaign-title">
            {current.name}
          </Title>
          <StatusBadge status={current.status} />
        </Group>
        <Group gap="xs">
          {canWrite && !isFinished(current.status) && (
            <Button variant="default" leftSection={<IconUpload size={16} />} onClick={() => setDialog('contacts')} data-testid="campaign-upload-contacts">
              {t('campaigns.contacts.open')}
            </Button>
          )}
          <Button variant="default" leftSection={canWrite && !isFinished(current.status) ? <IconEdit size={16} /> : <IconEye size={16} />} onClick={() => setDialog('edit')} data-testid="campaign-edit">
            {t(canWrite && !isFinished(current.status) ? 'common.edit' : 'common.view')}
          </Button>
          <CampaignControls campaign={current} />
        </Group>
      </Group>
      <Grid>
        <Grid.Col span={{ base: 12, md: 7 }}>
          <Section
            title={t('campaigns.progress.title')}
            testId="campaign-progress-section"
            actions={
              <Button component={Link} to={campaignReportsLink(current.id)} variant="subtle" size="xs" leftSection={<IconFileSearch size={14} />} data-testid="campaign-reports">
                {t('campaigns.reports')}
              </Button>
            }
          >
            {progress.isError ? <PageError error={progress.error} onRetry={() => void progress.refetch()} /> : <CampaignProgressView progress={progress.data} />}
          </Section>
        </Grid.Col>
        <Grid.Col span={{ base: 12, md: 5 }}>
          <Section title={t('campaigns.settings')} testId="campaign-settings-section">
            <Settings campaign={current} />
          </Section>
        </Grid.Col>
      </Grid>
      {invalidCount > 0 && <InvalidRows campaign={current} count={invalidCount} />}
      <CampaignResults campaign={current} done={progress.data?.done ?? 0} attempts={progress.data?.attempts ?? 0} messages={Boolean(progress.data?.reach)} />
      {dialog === 'edit' && <CampaignFormModal campaign={current} onClose={() => setDialog(null)} />}
      {dialog === 'contacts' && <ContactsUploadModal campaign={current} onClose={() => setDialog(null)} />}
    </Stack>
  );
}

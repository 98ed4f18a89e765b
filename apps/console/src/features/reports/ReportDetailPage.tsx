import { Alert, Anchor, Badge, Center, Code, Grid, Group, Loader, Paper, Stack, Table, Text, Title } from '@mantine/core';
import { IconArrowLeft } from '@tabler/icons-react';
import { useQuery } from '@tanstack/react-query';
import type { CallReportRecord } from '@voxplan/contracts';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useParams } from 'react-router';
import { api } from '../../lib/api/client.ts';
import { formatDateTime, formatDuration } from '../../lib/format.ts';
import { PageError } from '../../lib/PageError.tsx';
import { Facts, RunVariables } from '../visual-plans/editor/test-panel/RunDetails.tsx';
import { runBlockName } from '../visual-plans/editor/test-panel/run-texts.ts';
import { customerFacts } from '../conversations/customer-facts.tsx';
import { ReportHandoffs } from './ReportHandoff.tsx';
import { ReportWhatsappMessages } from './ReportWhatsappMessages.tsx';
import { ReportContext, ReportReplay, useReportNaming } from './ReportReplay.tsx';
import { ReportValue } from './ReportsPage.tsx';

/** Keys of a recording's results that hold what was said, shown as the transcript rather than as an analysis. */
const transcriptKeys = ['transcript', 'transcription'];

function Section({ title, children, testId }: { title: string; children: ReactNode; testId: string }) {
  return (
    <Paper withBorder p="md" data-testid={testId}>
      <Title order={3} mb="sm">
        {title}
      </Title>
      {children}
    </Paper>
  );
}

function Summary({ report }: { report: CallReportRecord }) {
  const { t, i18n } = useTranslation();
  const naming = useReportNaming(report);
  const dash = (value: string | null) => value || '—';
  const rows: Array<[string, ReactNode]> = [
    [t('reports.fields.plan'), t('reports.detail.planVersion', { name: report.plan_name, version: report.plan_version })],
    // The plans it entered through call_plan, each at the version it ran (its own rollout chose it: docs/rollouts.md).
    ...(report.called_plans
      ? [
          [
            t('reports.fields.calledPlans'),
            report.called_plans
              .map((plan) => t('reports.detail.planVersion', { name: plan.plan_name ?? t('reports.detail.planGone'), version: plan.plan_version }))
              .join(', '),
          ] as [string, ReactNode],
        ]
      : []),
    [t('reports.fields.channel'), `${t(`reports.channel.${report.channel}`)} · ${t(`reports.provider.${report.provider}`)}`],
    [t('reports.fields.direction'), <ReportValue list="direction" value={report.direction} />],
    [t('reports.fields.caller'), dash(report.caller)],
    // Who the chat's customer was, as its channel told it (issue 36): a name, else nothing to add.
    ...(report.customer?.name ? [[t('reports.fields.customer'), report.customer.name] as [string, ReactNode]] : []),
    ...customerFacts(report.customer, t),
    [t('reports.fields.called'), dash(report.called)],
    [t('reports.fields.startTime'), formatDateTime(report.start_time, i18n.language)],
    [t('reports.fields.endTime'), formatDateTime(report.end_time, i18n.language)],
    [t('reports.fields.duration'), formatDuration(report.duration_s * 1000)],
    [t('reports.fields.disposition'), <ReportValue list="disposition" value={report.disposition} />],
    [t('reports.fields.hangupCause'), <ReportValue list="hangupCause" value={report.hangup_cause} />],
    [t('reports.fields.dialStatus'), <ReportValue list="dialStatus" value={report.dial_status} />],
    // The goal's name as the person gave it on the block (docs/rollouts.md, "Goals").
    [t('reports.fields.goal'), dash(report.goal)],
    [t('reports.fields.lastNode'), report.last_node_id ? runBlockName(report.last_node_id, report.last_node_type ?? '', naming(report.plan_id)) : '—'],
    [t('reports.fields.sourceIp'), dash(report.source_ip)],
    [t('reports.fields.protocol'), dash(report.protocol)],
    [t('reports.fields.sessionId'), <Code>{report.session_id}</Code>],
  ];
  return <Facts rows={rows} label={t('reports.detail.summary')} testId="report-summary" />;
}

/** The keys pressed at each menu, in the order the menus were reached. */
function Digits({ report }: { report: CallReportRecord }) {
  const { t } = useTranslation();
  const naming = useReportNaming(report);
  const typeOf = new Map(report.nodes.map((entry) => [`${entry.plan_id}:${entry.node_id}`, entry.type]));
  const menus = new Map<string, { plan_id: number; node_id: string; entries: CallReportRecord['pressed_digits'] }>();
  for (const entry of report.pressed_digits) {
    const key = `${entry.plan_id}:${entry.node_id}`;
    const menu = menus.get(key) ?? { plan_id: entry.plan_id, node_id: entry.node_id, entries: [] };
    menu.entries.push(entry);
    menus.set(key, menu);
  }
  if (menus.size === 0) {
    return (
      <Text size="sm" c="dimmed">
        {t('reports.detail.noDigits')}
      </Text>
    );
  }
  const started = Date.parse(report.start_time);
  return (
    <Table verticalSpacing={4} data-testid="report-digits">
      <Table.Thead>
        <Table.Tr>
          <Table.Th>{t('reports.detail.menu')}</Table.Th>
          <Table.Th>{t('reports.detail.keys')}</Table.Th>
        </Table.Tr>
      </Table.Thead>
      <Table.Tbody>
        {[...menus.entries()].map(([key, menu]) => {
          const type = typeOf.get(key) ?? '';
          return (
            <Table.Tr key={key}>
              <Table.Td>{runBlockName(menu.node_id, type, naming(menu.plan_id))}</Table.Td>
              <Table.Td>
                <Group gap={6}>
                  {menu.entries.map((entry, index) => (
                    <Badge key={index} variant="light" title={`+${formatDuration(Date.parse(entry.at) - started)}`}>
                      {entry.digits}
                    </Badge>
                  ))}
                </Group>
              </Table.Td>
            </Table.Tr>
          );
        })}
      </Table.Tbody>
    </Table>
  );
}

const shown = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value));

function Recording({ recording }: { recording: NonNullable<CallReportRecord['recording']> }) {
  const { t } = useTranslation();
  const results = recording.results ?? {};
  const transcript = transcriptKeys.map((key) => results[key]).find((value) => typeof value === 'string');
  const analyses = Object.entries(results).filter(([key]) => !transcriptKeys.includes(key));
  return (
    <Stack gap="sm">
      <Group gap="xs">
        <Badge variant="light">{t(`reports.recordingStatus.${recording.status}`)}</Badge>
        {recording.duration_s !== null && <Text size="sm">{formatDuration(recording.duration_s * 1000)}</Text>}
      </Group>
      {recording.url && (
        <audio controls preload="none" src={recording.url} style={{ width: '100%' }} aria-label={t('reports.detail.recording')} data-testid="report-recording-player">
          <track kind="captions" />
        </audio>
      )}
      {recording.error && <Alert color="red">{recording.error}</Alert>}
      {transcript !== undefined && (
        <div data-testid="report-transcript">
          <Text fw={600} size="sm">
            {t('reports.detail.transcript')}
          </Text>
          <Text size="sm" style={{ whiteSpace: 'pre-wrap' }}>
            {String(transcript)}
          </Text>
        </div>
      )}
      {analyses.length > 0 && <Facts rows={analyses.map(([name, value]) => [name, shown(value)])} label={t('reports.detail.analyses')} testId="report-analyses" />}
    </Stack>
  );
}

/** One call or chat report: its facts, its path replayed over the plan version that ran, keys, variables, failure and recording. */
export default function ReportDetailPage() {
  const { t } = useTranslation();
  const { reportId } = useParams();
  const report = useQuery({
    queryKey: ['/reports', 'one', reportId],
    queryFn: ({ signal }) => api.get<CallReportRecord>(`/reports/${reportId}`, { signal }),
  });
  return (
    <Stack gap="md">
      <Anchor component={Link} to=".." relative="path" size="sm" data-testid="report-back">
        <Group gap={4}>
          <IconArrowLeft size={14} />
          {t('reports.detail.back')}
        </Group>
      </Anchor>
      {report.isError && <PageError error={report.error} onRetry={() => void report.refetch()} />}
      {report.isPending && (
        <Center h={200}>
          <Loader aria-label={t('common.loading')} />
        </Center>
      )}
      {report.data && (
        <>
          <Group gap="sm">
            <Title order={2}>{t('reports.detail.title', { id: report.data.id })}</Title>
            {report.data.is_test && (
              <Badge variant="outline" color="gray">
                {t('reports.test')}
              </Badge>
            )}
          </Group>
          {report.data.failure && (
            <Alert color="red" title={t('reports.detail.failure')} data-testid="report-failure">
              <Code>{report.data.failure.code}</Code> {report.data.failure.message}
            </Alert>
          )}
          <ReportContext report={report.data}>
            <Grid gap="md">
              <Grid.Col span={{ base: 12, lg: 8 }}>
                <Paper withBorder p="md">
                  <ReportReplay report={report.data} />
                </Paper>
              </Grid.Col>
              <Grid.Col span={{ base: 12, lg: 4 }}>
                <Stack gap="md">
                  <Section title={t('reports.detail.summary')} testId="report-summary-section">
                    <Summary report={report.data} />
                  </Section>
                  {(report.data.handoffs?.length ?? 0) > 0 && (
                    <Section title={t('reports.handoff.title')} testId="report-handoff-section">
                      <ReportHandoffs report={report.data} />
                    </Section>
                  )}
                  {(report.data.whatsapp_messages?.length ?? 0) > 0 && (
                    <Section title={t('reports.whatsapp.title')} testId="report-whatsapp-section">
                      <ReportWhatsappMessages report={report.data} />
                    </Section>
                  )}
                  <Section title={t('reports.detail.digits')} testId="report-digits-section">
                    <Digits report={report.data} />
                  </Section>
                  <Section title={t('reports.detail.variables')} testId="report-variables-section">
                    <RunVariables variables={report.data.variables} />
                  </Section>
                  {report.data.recording && (
                    <Section title={t('reports.detail.recording')} testId="report-recording">
                      <Recording recording={report.data.recording} />
                    </Section>
                  )}
                </Stack>
              </Grid.Col>
            </Grid>
          </ReportContext>
        </>
      )}
    </Stack>
  );
}

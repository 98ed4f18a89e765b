import { ActionIcon, Badge, Group, Tooltip } from '@mantine/core';
import { IconFileSearch } from '@tabler/icons-react';
import type { CallReportRecord } from '@voxplan/contracts';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { formatDateTime, formatDuration } from '../../lib/format.ts';
import { type Column, DataTable } from '../../lib/table/DataTable.tsx';
import { ExportCsvButton } from './ExportCsvButton.tsx';
import { HiddenTestCalls } from './HiddenTestCalls.tsx';
import { ReportFiltersBar } from './ReportFiltersBar.tsx';
import { type ReportFilters, reportFiltersOf, reportWhere } from './report-filter.ts';
import { type ReportList, reportOptions, valueKey } from './report-values.ts';

/**
 * A value of a report list in the user's language (a dash where there is none): a badge in the
 * detail, plain text in the table, where badges' capitals would be cut in narrow columns.
 */
export function ReportValue({ list, value, plain = false }: { list: ReportList; value: string | null; plain?: boolean }) {
  const { t } = useTranslation();
  const key = valueKey(list, value);
  if (!key) return '—';
  if (plain) return t(key);
  return (
    // A long value ("Resolved by a person", "Resolvida por uma pessoa") wraps in its column instead of ending in "…".
    <Badge
      variant="light"
      color={list === 'disposition' && value === 'failed' ? 'red' : undefined}
      data-value={value}
      styles={{ root: { height: 'auto', maxWidth: '100%', paddingBlock: 2 }, label: { whiteSpace: 'normal', overflow: 'visible', textOverflow: 'clip' } }}
    >
      {t(key)}
    </Badge>
  );
}

function StartTime({ report }: { report: CallReportRecord }) {
  const { t, i18n } = useTranslation();
  return (
    <Group gap={6} wrap="nowrap">
      {formatDateTime(report.start_time, i18n.language)}
      {report.is_test && (
        <Badge size="xs" variant="outline" color="gray">
          {t('reports.test')}
        </Badge>
      )}
    </Group>
  );
}

function ChannelProvider({ report }: { report: CallReportRecord }) {
  const { t } = useTranslation();
  return `${t(`reports.channel.${report.channel}`)} · ${t(`reports.provider.${report.provider}`)}`;
}

/** A chat's last hand-off: the person who ended up with it and the queue it reached (a dash for a call, or nobody). */
const lastHandOff = (report: CallReportRecord) => report.handoffs?.at(-1);

const columns: Column<CallReportRecord>[] = [
  { field: 'start_time', labelKey: 'reports.fields.startTime', type: 'date', render: (report) => <StartTime report={report} /> },
  { field: 'plan_name', labelKey: 'reports.fields.plan', type: 'text' },
  // Which version the session ran: during a rollout, two versions of one plan answer side by side.
  { field: 'plan_version', labelKey: 'reports.fields.planVersion', type: 'number' },
  // Beside the plan, in view without scrolling the table sideways. Filtered by the filters above
  // (agent_id, queue_id), not sorted: they are read from the hand-off.
  { field: 'agent', labelKey: 'reports.fields.agent', type: 'text', sortable: false, filterable: false, render: (report) => lastHandOff(report)?.agent?.name ?? '—' },
  { field: 'queue', labelKey: 'reports.fields.queue', type: 'text', sortable: false, filterable: false, render: (report) => lastHandOff(report)?.queue?.name ?? '—' },
  { field: 'caller', labelKey: 'reports.fields.caller', type: 'text' },
  { field: 'called', labelKey: 'reports.fields.called', type: 'text' },
  { field: 'provider', labelKey: 'reports.fields.channel', type: 'enum', options: reportOptions.provider, render: (report) => <ChannelProvider report={report} /> },
  { field: 'direction', labelKey: 'reports.fields.direction', type: 'enum', options: reportOptions.direction, render: (report) => <ReportValue list="direction" value={report.direction} plain /> },
  { field: 'duration_s', labelKey: 'reports.fields.duration', type: 'number', render: (report) => formatDuration(report.duration_s * 1000) },
  { field: 'disposition', labelKey: 'reports.fields.disposition', type: 'enum', options: reportOptions.disposition, render: (report) => <ReportValue list="disposition" value={report.disposition} plain /> },
  { field: 'hangup_cause', labelKey: 'reports.fields.hangupCause', type: 'enum', options: reportOptions.hangupCause, render: (report) => <ReportValue list="hangupCause" value={report.hangup_cause} plain /> },
  { field: 'dial_status', labelKey: 'reports.fields.dialStatus', type: 'enum', options: reportOptions.dialStatus, render: (report) => <ReportValue list="dialStatus" value={report.dial_status} plain /> },
];

const searchFields = ['plan_name', 'caller', 'called'];

/** The call and chat reports: newest first, the screen's filters over the table's, CSV export of what they select. */
export default function ReportsPage() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const [search] = useSearchParams();
  // A link may ask for a period with the test sessions (the dashboard's "show test calls").
  const [filters, setFilters] = useState<ReportFilters>(() => reportFiltersOf(search));
  const baseWhere = useMemo(() => reportWhere(filters), [filters]);
  const withoutTests = useMemo(() => reportWhere({ ...filters, showTest: false }), [filters]);
  return (
    <DataTable<CallReportRecord>
        tableId="reports"
        resource="/reports"
        titleKey="nav.reports"
        columns={columns}
        searchFields={searchFields}
        defaultSort={{ field: 'start_time', direction: 'DESC' }}
        baseWhere={baseWhere}
        filterBar={
          <>
            <ReportFiltersBar filters={filters} onChange={setFilters} />
            {!filters.showTest && <HiddenTestCalls where={withoutTests} onShow={() => setFilters((current) => ({ ...current, showTest: true }))} />}
          </>
        }
        // The whole row opens its report (click, or Enter on the focused row), not only the small button.
        onRowOpen={(report) => void navigate(String(report.id))}
        viewActions={({ where }) => <ExportCsvButton where={where} />}
        rowActions={(report) => (
          <Tooltip label={t('reports.open')}>
            <ActionIcon component={Link} to={String(report.id)} variant="subtle" aria-label={t('reports.open')} data-testid="report-open">
              <IconFileSearch size={16} />
            </ActionIcon>
          </Tooltip>
        )}
      />
  );
}

import { Code, List, Table, Text } from '@mantine/core';
import type { CallReportRecord } from '@voxplan/contracts';
import type { PathEntry } from '@voxplan/engine';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { formatDuration } from '../../../../lib/format.ts';
import { pathEntryText, type RunNaming, runBlockName } from './run-texts.ts';

/** Two columns, a name and its value: the report's facts and the variables (the reports screen's detail too). */
export function Facts({ rows, label, testId }: { rows: Array<[string, ReactNode]>; label: string; testId: string }) {
  return (
    <Table withRowBorders={false} verticalSpacing={2} horizontalSpacing={4} aria-label={label} data-testid={testId}>
      <Table.Tbody>
        {rows.map(([name, value]) => (
          <Table.Tr key={name}>
            <Table.Th fw={500} style={{ whiteSpace: 'nowrap', verticalAlign: 'top' }}>
              <Text size="sm">{name}</Text>
            </Table.Th>
            <Table.Td style={{ overflowWrap: 'break-word' }}>
              <Text size="sm">{value}</Text>
            </Table.Td>
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  );
}

/** The blocks the run entered, in order, each with the exit it left by. */
export function RunPath({ path, naming }: { path: PathEntry[]; naming: RunNaming }) {
  const { t } = useTranslation();
  if (path.length === 0) {
    return (
      <Text size="sm" c="dimmed">
        {t('testPanel.pathEmpty')}
      </Text>
    );
  }
  return (
    <List type="ordered" size="sm" spacing={2} aria-label={t('testPanel.path')} data-testid="test-panel-path">
      {path.map((entry, index) => (
        <List.Item key={index} data-node-id={entry.node_id}>
          {pathEntryText(entry, naming, t)}
        </List.Item>
      ))}
    </List>
  );
}

const shownValue = (value: unknown) => (typeof value === 'string' ? value : <Code>{JSON.stringify(value)}</Code>);

export function RunVariables({ variables }: { variables: Record<string, unknown> }) {
  const { t } = useTranslation();
  const names = Object.keys(variables).sort();
  if (names.length === 0) {
    return (
      <Text size="sm" c="dimmed">
        {t('testPanel.variablesEmpty')}
      </Text>
    );
  }
  return <Facts label={t('testPanel.variables')} testId="test-panel-variables" rows={names.map((name) => [name, shownValue(variables[name])])} />;
}

/** The test session's call report, as /reports keeps it. */
export function RunReport({ report, naming }: { report: CallReportRecord; naming: RunNaming }) {
  const { t } = useTranslation();
  const answeredBy = report.variables.answered_by;
  const rows: Array<[string, ReactNode]> = [
    [t('testPanel.report.direction'), t(`reports.direction.${report.direction}`)],
    ...(report.direction === 'outbound' && (answeredBy === 'human' || answeredBy === 'machine' || answeredBy === 'unknown')
      ? [[t('testPanel.report.answeredBy'), t(`testPanel.answeredBy.${answeredBy}`)] as [string, ReactNode]]
      : []),
    [t('testPanel.report.disposition'), report.disposition ? t(`testPanel.disposition.${report.disposition}`) : '—'],
    [t('testPanel.report.hangupCause'), report.hangup_cause ? t(`testPanel.hangupCause.${report.hangup_cause}`) : '—'],
    [t('testPanel.report.dialStatus'), report.dial_status ? t(`testPanel.dialStatus.${report.dial_status}`) : '—'],
    [t('testPanel.report.duration'), formatDuration(report.duration_s * 1000)],
    [t('testPanel.report.lastNode'), report.last_node_id ? runBlockName(report.last_node_id, report.last_node_type ?? '', naming) : '—'],
    [t('testPanel.report.digits'), report.pressed_digits.map((entry) => entry.digits).join(' ') || '—'],
  ];
  if (report.failure) rows.push([t('testPanel.report.failure'), `${report.failure.code}: ${report.failure.message}`]);
  rows.push([t('testPanel.report.id'), String(report.id)]);
  return <Facts label={t('testPanel.report.title')} testId="test-panel-report" rows={rows} />;
}

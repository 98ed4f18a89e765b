import '@mantine/charts/styles.css';
import { BarChart } from '@mantine/charts';
import { Table, VisuallyHidden } from '@mantine/core';
import type { StatsDaily } from '@voxplan/contracts';
import { useTranslation } from 'react-i18next';
import { formatNumber, localeOf } from '../../lib/format.ts';
import { dayStart } from './period.ts';

/**
 * Calls and chats per day, stacked (loaded apart from the dashboard: the chart library is most of
 * its weight). The same figures are in a table for screen readers, which cannot read the bars.
 */
export default function DailyChart({ days }: { days: StatsDaily['days'] }) {
  const { t, i18n } = useTranslation();
  const language = i18n.language;
  const dayLabel = new Intl.DateTimeFormat(localeOf(language), { day: 'numeric', month: 'short' });
  const data = days.map(({ day, figures }) => ({ day: dayLabel.format(dayStart(day)), calls: figures.calls, chats: figures.chats }));
  const callsLabel = t('dashboard.figures.calls');
  const chatsLabel = t('dashboard.figures.chats');
  return (
    <>
      <BarChart
        h={260}
        data={data}
        dataKey="day"
        type="stacked"
        series={[
          { name: 'calls', label: callsLabel, color: 'indigo.5' },
          { name: 'chats', label: chatsLabel, color: 'teal.5' },
        ]}
        valueFormatter={(value) => formatNumber(value, language)}
        withLegend
        tickLine="y"
        data-testid="daily-chart"
      />
      <VisuallyHidden>
        <Table data-testid="daily-table">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>{t('dashboard.daily.day')}</Table.Th>
              <Table.Th>{callsLabel}</Table.Th>
              <Table.Th>{chatsLabel}</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {days.map(({ day, figures }, index) => (
              <Table.Tr key={day} data-day={day}>
                <Table.Td>{data[index]!.day}</Table.Td>
                <Table.Td>{formatNumber(figures.calls, language)}</Table.Td>
                <Table.Td>{formatNumber(figures.chats, language)}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </VisuallyHidden>
    </>
  );
}

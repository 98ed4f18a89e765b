import { Code, ScrollArea, Table, Text } from '@mantine/core';
import type { CampaignInvalidRow } from '@voxplan/contracts';
import { useTranslation } from 'react-i18next';
import { formatNumber } from '../../lib/format.ts';

type Row = Pick<CampaignInvalidRow, 'line' | 'reason' | 'value'>;

/** The lines of a contact list that were not taken: the line of the file, why, and what it held. */
export function InvalidRowsTable({ rows, total }: { rows: Row[]; total: number }) {
  const { t, i18n } = useTranslation();
  return (
    <>
      <ScrollArea.Autosize mah={320}>
        <Table striped verticalSpacing={4} data-testid="contacts-invalid-rows">
          <Table.Thead>
            <Table.Tr>
              <Table.Th ta="right">{t('campaigns.contacts.line')}</Table.Th>
              <Table.Th>{t('campaigns.contacts.reason')}</Table.Th>
              <Table.Th>{t('campaigns.contacts.value')}</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {rows.map((row) => (
              <Table.Tr key={`${row.line}:${row.reason}`} data-testid="contacts-invalid-row">
                <Table.Td ta="right">{formatNumber(row.line, i18n.language)}</Table.Td>
                <Table.Td>{t(`campaigns.invalidReasons.${row.reason}`)}</Table.Td>
                <Table.Td>{row.value ? <Code>{row.value}</Code> : '—'}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </ScrollArea.Autosize>
      {total > rows.length && (
        <Text size="xs" c="dimmed" data-testid="contacts-invalid-more">
          {t('campaigns.contacts.invalidShown', { shown: formatNumber(rows.length, i18n.language), total: formatNumber(total, i18n.language) })}
        </Text>
      )}
    </>
  );
}

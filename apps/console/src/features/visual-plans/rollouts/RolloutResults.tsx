import { Loader, Stack, Table, Text, Title } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { formatDuration, formatNumber } from '../../../lib/format.ts';
import { useRolloutResults, type VersionResult } from './rollout-api.ts';
import { confidenceText } from './rollout-texts.ts';

type Row = { key: string; value: (version: VersionResult) => string };

/** Each version's figures side by side (counted as the dashboard counts them), the confidence line, and where sessions ended. */
export function RolloutResults({ planId, tenantId, rolloutId }: { planId: number; tenantId: number; rolloutId: number }) {
  const { t, i18n } = useTranslation();
  const language = i18n.language;
  const results = useRolloutResults(planId, tenantId, rolloutId);
  if (!results.data) return results.isError ? null : <Loader size="sm" aria-label={t('common.loading')} />;
  const { versions } = results.data;
  const count = (value: number) => formatNumber(value, language);
  const percent = (value: number | null) => formatNumber(value, language, { style: 'percent', maximumFractionDigits: 1 });
  const rows: Row[] = [
    { key: 'sessions', value: (version) => count(version.sessions) },
    { key: 'retained', value: (version) => count(version.retained) },
    { key: 'routed', value: (version) => count(version.routed) },
    { key: 'abandoned', value: (version) => count(version.abandoned) },
    { key: 'converted', value: (version) => count(version.converted) },
    { key: 'goalRate', value: (version) => percent(version.goal_rate) },
    { key: 'medianDuration', value: (version) => formatDuration(version.median_duration_ms) },
    { key: 'failures', value: (version) => count(version.failures) },
  ];
  const blocks = new Map<string, string>();
  for (const version of versions) for (const entry of version.drop_off) blocks.set(entry.node_id, entry.name);
  const dropOf = (version: VersionResult, nodeId: string) => {
    const entry = version.drop_off.find((candidate) => candidate.node_id === nodeId);
    return entry ? t('rollouts.endedOf', { ended: count(entry.ended), entered: count(entry.entered) }) : '—';
  };
  const heading = (version: VersionResult) => t('rollouts.versionShare', { version: version.version, share: version.share });
  return (
    <Stack gap="xs" data-testid="rollout-results">
      <Title order={4} size="h6">
        {t('rollouts.results')}
      </Title>
      <Table data-testid="rollout-figures">
        <Table.Thead>
          <Table.Tr>
            <Table.Th />
            {versions.map((version) => (
              <Table.Th key={version.version} ta="end" style={{ whiteSpace: 'nowrap' }}>
                {heading(version)}
              </Table.Th>
            ))}
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {rows.map((row) => (
            <Table.Tr key={row.key} data-testid={`rollout-figure-${row.key}`}>
              <Table.Th fw={400}>{t(`rollouts.figures.${row.key}`)}</Table.Th>
              {versions.map((version) => (
                <Table.Td key={version.version} ta="end">
                  {row.value(version)}
                </Table.Td>
              ))}
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
      <Text size="sm" fw={500} data-testid="rollout-confidence">
        {confidenceText(results.data, t, language)}
      </Text>
      {blocks.size > 0 && (
        <>
          <Text size="sm" fw={500}>
            {t('rollouts.dropOff')}
          </Text>
          <Table data-testid="rollout-drop-off">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>{t('rollouts.block')}</Table.Th>
                {versions.map((version) => (
                  <Table.Th key={version.version} ta="end">
                    {t('rollouts.versionNumber', { version: version.version })}
                  </Table.Th>
                ))}
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {[...blocks].map(([nodeId, name]) => (
                <Table.Tr key={nodeId}>
                  <Table.Td>{name}</Table.Td>
                  {versions.map((version) => (
                    <Table.Td key={version.version} ta="end">
                      {dropOf(version, nodeId)}
                    </Table.Td>
                  ))}
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </>
      )}
    </Stack>
  );
}

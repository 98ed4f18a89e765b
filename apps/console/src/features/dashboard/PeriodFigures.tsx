import { SimpleGrid } from '@mantine/core';
import type { StatsFigures } from '@voxplan/contracts';
import { useTranslation } from 'react-i18next';
import { formatDuration, formatNumber } from '../../lib/format.ts';
import { Figure } from './Figure.tsx';

const counted = ['sessions', 'calls', 'chats', 'routed', 'retained', 'abandoned', 'missed', 'failed', 'expired'] as const;

/** The period's figures: counts by channel and disposition, the retention rate and the mean duration. */
export function PeriodFigures({ figures }: { figures: StatsFigures | undefined }) {
  const { t, i18n } = useTranslation();
  const language = i18n.language;
  const count = (value: number | undefined) => (figures ? formatNumber(value, language) : '—');
  return (
    <SimpleGrid cols={{ base: 2, sm: 3, lg: 5 }} data-testid="period-figures">
      {counted.map((key) => (
        <Figure key={key} testId={`figure-${key}`} label={t(`dashboard.figures.${key}`)} value={count(figures?.[key])} />
      ))}
      <Figure
        testId="figure-retention_rate"
        label={t('dashboard.figures.retentionRate')}
        value={formatNumber(figures?.retention_rate, language, { style: 'percent', maximumFractionDigits: 1 })}
      />
      <Figure
        testId="figure-average_duration"
        label={t('dashboard.figures.averageDuration')}
        value={figures?.average_duration_s == null ? '—' : formatDuration(figures.average_duration_s * 1000)}
      />
    </SimpleGrid>
  );
}

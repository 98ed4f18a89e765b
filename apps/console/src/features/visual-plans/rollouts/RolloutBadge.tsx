import { Badge } from '@mantine/core';
import type { StatsPlans } from '@voxplan/contracts';
import { useTranslation } from 'react-i18next';

/** A plan's running rollout in a few characters ("v3 → v4 10 %"), for a row of figures (the statistics' answer brings it). */
export function RolloutBadge({ rollout }: { rollout: NonNullable<StatsPlans['plans'][number]['rollout']> }) {
  const { t } = useTranslation();
  return (
    // A phone's plan column is narrow: the words wrap rather than end in "v…".
    <Badge
      size="sm"
      variant="light"
      color="grape"
      ml={6}
      h="auto"
      radius="sm"
      styles={{ root: { textTransform: 'none', maxWidth: '100%' }, label: { whiteSpace: 'normal', overflow: 'visible' } }}
      data-testid="plan-rollout"
    >
      {t('rollouts.dashboard', { base: rollout.base_version, version: rollout.candidate_version, share: rollout.share })}
    </Badge>
  );
}

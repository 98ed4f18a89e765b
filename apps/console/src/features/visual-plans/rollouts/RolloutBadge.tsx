import { Badge } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { useRunningRollout } from './rollout-api.ts';

/** A plan's running rollout in a few characters ("v3 → v4 10 %"), for a row of figures; nothing when none runs. */
export function RolloutBadge({ planId, tenantId }: { planId: number; tenantId?: number }) {
  const { t } = useTranslation();
  const rollout = useRunningRollout(planId, tenantId).data;
  if (!rollout) return null;
  return (
    <Badge size="sm" variant="light" color="grape" ml={6} style={{ textTransform: 'none' }} data-testid="plan-rollout">
      {t('rollouts.dashboard', { base: rollout.base_version, version: rollout.candidate_version, share: rollout.share })}
    </Badge>
  );
}

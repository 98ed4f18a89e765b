import { Checkbox, Group, NumberInput, Stack, TagsInput, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import type { RolloutSettings } from './rollout-api.ts';

export const defaultRolloutSettings: RolloutSettings = { share: 10, pinned: [], auto_rollback: null };

/**
 * What a rollout asks: the share of sessions the new version meets, the test numbers (or web chat
 * visitor ids) pinned to it, and the optional rule that rolls it back by itself. A running rollout's
 * drawer changes its share on its own (`withShare` false): the rest here.
 */
export function RolloutFields({ value, onChange, withShare = true }: { value: RolloutSettings; onChange(value: RolloutSettings): void; withShare?: boolean }) {
  const { t } = useTranslation();
  const rule = value.auto_rollback ?? { goal_worse: false, max_failure_rate: null };
  const setRule = (next: typeof rule) => onChange({ ...value, auto_rollback: next.goal_worse || next.max_failure_rate !== null ? next : null });
  return (
    <Stack gap="sm" data-testid="rollout-fields">
      {withShare && (
        <NumberInput
          label={t('rollouts.share')}
          description={t('rollouts.shareHint')}
          min={0}
          max={100}
          clampBehavior="strict"
          allowDecimal={false}
          suffix=" %"
          value={value.share}
          onChange={(share) => onChange({ ...value, share: typeof share === 'number' ? share : 0 })}
          data-testid="rollout-share"
        />
      )}
      <TagsInput
        label={t('rollouts.pinned')}
        description={t('rollouts.pinnedHint')}
        value={value.pinned}
        onChange={(pinned) => onChange({ ...value, pinned })}
        maxTags={100}
        clearable
        data-testid="rollout-pinned"
      />
      <Stack gap={6}>
        <Text size="sm" fw={500}>
          {t('rollouts.autoRollback')}
        </Text>
        <Checkbox label={t('rollouts.goalWorse')} checked={rule.goal_worse} onChange={(event) => setRule({ ...rule, goal_worse: event.currentTarget.checked })} data-testid="rollout-goal-worse" />
        <Group gap="xs" wrap="nowrap" align="center">
          <Checkbox
            label={t('rollouts.failureAbove')}
            checked={rule.max_failure_rate !== null}
            onChange={(event) => setRule({ ...rule, max_failure_rate: event.currentTarget.checked ? 5 : null })}
            data-testid="rollout-failure-rule"
          />
          <NumberInput
            aria-label={t('rollouts.failureRate')}
            w={90}
            min={0}
            max={100}
            clampBehavior="strict"
            suffix=" %"
            disabled={rule.max_failure_rate === null}
            value={rule.max_failure_rate ?? ''}
            onChange={(rate) => setRule({ ...rule, max_failure_rate: typeof rate === 'number' ? rate : 0 })}
            data-testid="rollout-failure-rate"
          />
        </Group>
      </Stack>
    </Stack>
  );
}

import { formatNumber } from '../../../lib/format.ts';
import type { RolloutAutoRollbackEvent } from '@voxplan/contracts';
import type { RolloutResults } from './rollout-api.ts';

type Translate = (key: string, options?: Record<string, unknown>) => string;

/**
 * The confidence line under the results: the new version's goal rate against the current one's,
 * in points, with the two-proportion test's confidence; or why there is none yet.
 */
export function confidenceText(results: Pick<RolloutResults, 'rollout' | 'comparison'>, t: Translate, language: string): string {
  const { comparison, rollout } = results;
  const difference = comparison.goal_rate_difference;
  if (!comparison.enough_data || difference === null || comparison.confidence === null) return t('rollouts.notEnoughData');
  // Goal rates are fractions (0..1): a difference of 0.061 reads as 6.1 points.
  const points = formatNumber(Math.abs(difference) * 100, language, { maximumFractionDigits: 1 });
  const confidence = formatNumber(comparison.confidence, language, { style: 'percent', maximumFractionDigits: 0 });
  const key = difference > 0 ? 'rollouts.higher' : difference < 0 ? 'rollouts.lower' : 'rollouts.same';
  return t(key, { version: rollout.candidate_version, points, confidence });
}

/**
 * An automatic rollback as the console tells it, in the reader's language (the event's `note` is in
 * the tenant's): the plan and the versions in the title, the rule's reason in figures below.
 */
export function rollbackAlertText(event: RolloutAutoRollbackEvent, t: Translate, language: string): { title: string; reason: string } {
  const percent = (value: number) => formatNumber(value, language, { style: 'percent', maximumFractionDigits: 1 });
  const { cause } = event;
  const versions = { version: event.candidate_version, base: event.base_version };
  const reason =
    cause.rule === 'goal_worse'
      ? t('rollouts.alert.goalWorse', { ...versions, rate: percent(cause.candidate_goal_rate), baseRate: percent(cause.base_goal_rate), confidence: percent(cause.confidence) })
      : t('rollouts.alert.failures', { ...versions, failures: cause.failures, sessions: cause.sessions, rate: percent(cause.failure_rate), allowed: percent(cause.max_failure_rate / 100) });
  return { title: t('rollouts.alert.title', { plan: event.plan_name, version: event.candidate_version }), reason };
}

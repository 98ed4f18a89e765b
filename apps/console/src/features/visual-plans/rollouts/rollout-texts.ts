import { formatNumber } from '../../../lib/format.ts';
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

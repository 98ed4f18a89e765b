/**
 * The statistics of a rollout's results (docs/rollouts.md, "Results per version"): when there is
 * enough data, and how sure the difference in goal rate is, by a two-proportion z-test.
 */

/** Sessions each version needs before the comparison says anything. */
export const MIN_SESSIONS_PER_VERSION = 30;
/** Converted sessions, and sessions not converted, each version needs: the z-test's normal approximation holds from about there. */
export const MIN_OUTCOMES_PER_VERSION = 5;

export interface GoalCounts {
  sessions: number;
  converted: number;
}

/** Whether both versions have enough sessions, and enough of each outcome, to compare their goal rates. */
export function hasEnoughData(base: GoalCounts, candidate: GoalCounts): boolean {
  return [base, candidate].every(
    ({ sessions, converted }) => sessions >= MIN_SESSIONS_PER_VERSION && converted >= MIN_OUTCOMES_PER_VERSION && sessions - converted >= MIN_OUTCOMES_PER_VERSION,
  );
}

/**
 * The error function, by Abramowitz and Stegun's formula 7.1.26 (absolute error under 1.5e-7):
 * far finer than a confidence shown in whole percent, and no dependency for one function.
 */
function erf(x: number): number {
  const sign = x < 0 ? -1 : 1;
  const t = 1 / (1 + 0.3275911 * Math.abs(x));
  const polynomial = ((((1.061405429 * t - 1.453152027) * t + 1.421413741) * t - 0.284496736) * t + 0.254829592) * t;
  return sign * (1 - polynomial * Math.exp(-x * x));
}

/** The standard normal distribution's cumulative probability. */
export const normalCdf = (z: number): number => 0.5 * (1 + erf(z / Math.SQRT2));

export interface Comparison {
  enough_data: boolean;
  /** The candidate's goal rate minus the base's (-1..1); null while either version has no session. */
  goal_rate_difference: number | null;
  /** 1 minus the two-sided p-value of the z-test (0..1); null without enough data. */
  confidence: number | null;
}

/**
 * Compares the candidate's goal rate with the base's. The z statistic uses the pooled rate
 * p = (x1 + x2) / (n1 + n2): z = (p2 - p1) / sqrt(p (1 - p) (1/n1 + 1/n2)); the confidence is
 * 1 - 2 (1 - Φ(|z|)).
 */
export function compareGoalRates(base: GoalCounts, candidate: GoalCounts): Comparison {
  const difference = base.sessions === 0 || candidate.sessions === 0 ? null : candidate.converted / candidate.sessions - base.converted / base.sessions;
  const enough = hasEnoughData(base, candidate);
  if (!enough || difference === null) return { enough_data: enough, goal_rate_difference: difference, confidence: null };
  const pooled = (base.converted + candidate.converted) / (base.sessions + candidate.sessions);
  const standardError = Math.sqrt(pooled * (1 - pooled) * (1 / base.sessions + 1 / candidate.sessions));
  // Enough data means both outcomes occur, so the pooled rate is strictly between 0 and 1.
  const z = difference / standardError;
  return { enough_data: true, goal_rate_difference: difference, confidence: 1 - 2 * (1 - normalCdf(Math.abs(z))) };
}

/** The median of numbers sorted in ascending order; null for none. */
export function medianOfSorted(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  const middle = Math.floor(values.length / 2);
  return values.length % 2 === 1 ? values[middle]! : (values[middle - 1]! + values[middle]!) / 2;
}

import { describe, expect, it } from 'vitest';
import { compareGoalRates, hasEnoughData, medianOfSorted, normalCdf } from './results-statistics.ts';

describe('rollout results statistics', () => {
  it('reads the normal distribution as the tables give it', () => {
    expect(normalCdf(0)).toBeCloseTo(0.5, 7);
    expect(normalCdf(1.959964)).toBeCloseTo(0.975, 6);
    expect(normalCdf(-2.575829)).toBeCloseTo(0.005, 6);
  });

  it('compares goal rates by a two-sided two-proportion z-test, as computed by hand', () => {
    // Base 60 of 200 (0.30), candidate 40 of 200 (0.20): pooled p = 100/400 = 0.25,
    // SE = sqrt(0.25 × 0.75 × (1/200 + 1/200)) = sqrt(0.001875) = 0.0433013,
    // z = -0.10 / 0.0433013 = -2.3094; two-sided p = 2 × (1 - Φ(2.3094)) = 0.020921.
    const comparison = compareGoalRates({ sessions: 200, converted: 60 }, { sessions: 200, converted: 40 });
    expect(comparison.enough_data).toBe(true);
    expect(comparison.goal_rate_difference).toBeCloseTo(-0.1, 10);
    expect(comparison.confidence).toBeCloseTo(1 - 0.020921, 5);
  });

  it('is symmetric, and says nothing sure of equal rates', () => {
    const a = compareGoalRates({ sessions: 120, converted: 30 }, { sessions: 80, converted: 32 });
    const b = compareGoalRates({ sessions: 80, converted: 32 }, { sessions: 120, converted: 30 });
    expect(a.confidence).toBeCloseTo(b.confidence!, 12);
    expect(a.goal_rate_difference).toBeCloseTo(-b.goal_rate_difference!, 12);
    expect(compareGoalRates({ sessions: 100, converted: 40 }, { sessions: 50, converted: 20 }).confidence).toBeCloseTo(0, 6);
  });

  it('needs 30 sessions and 5 of each outcome per version', () => {
    expect(hasEnoughData({ sessions: 30, converted: 5 }, { sessions: 30, converted: 25 })).toBe(true);
    expect(hasEnoughData({ sessions: 29, converted: 10 }, { sessions: 100, converted: 50 })).toBe(false);
    expect(hasEnoughData({ sessions: 100, converted: 4 }, { sessions: 100, converted: 50 })).toBe(false);
    expect(hasEnoughData({ sessions: 100, converted: 50 }, { sessions: 100, converted: 96 })).toBe(false);
    const few = compareGoalRates({ sessions: 10, converted: 5 }, { sessions: 10, converted: 1 });
    expect(few).toEqual({ enough_data: false, goal_rate_difference: expect.closeTo(-0.4, 10), confidence: null });
    expect(compareGoalRates({ sessions: 0, converted: 0 }, { sessions: 3, converted: 1 }).goal_rate_difference).toBeNull();
  });

  it('takes the median of sorted values', () => {
    expect(medianOfSorted([])).toBeNull();
    expect(medianOfSorted([4])).toBe(4);
    expect(medianOfSorted([1, 3, 10])).toBe(3);
    expect(medianOfSorted([1, 3, 10, 20])).toBe(6.5);
  });
});

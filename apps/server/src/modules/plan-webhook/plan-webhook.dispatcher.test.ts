import { describe, expect, test } from 'vitest';
import { DEFAULT_RETRY_DELAYS_MS, retryDelayMs } from './plan-webhook.dispatcher.ts';

describe('retry delays', () => {
  const exact = { retryDelaysMs: [10_000, 30_000, 120_000], jitter: 0.2, random: () => 0.5 };

  test('follow the list, and repeat its last wait beyond it', () => {
    expect([1, 2, 3, 4, 9].map((attempts) => retryDelayMs(attempts, exact))).toEqual([10_000, 30_000, 120_000, 120_000, 120_000]);
  });

  test('jitter spreads each wait by at most the fraction either way', () => {
    expect(retryDelayMs(2, { ...exact, random: () => 0 })).toBe(24_000);
    expect(retryDelayMs(2, { ...exact, random: () => 0.999999 })).toBe(36_000);
    expect(retryDelayMs(2, { ...exact, jitter: 0, random: () => 0 })).toBe(30_000);
  });

  test('the default schedule grows by at least half again each step, so jitter of 20% never reorders it', () => {
    for (let i = 1; i < DEFAULT_RETRY_DELAYS_MS.length; i++) {
      expect(DEFAULT_RETRY_DELAYS_MS[i]! * 0.8).toBeGreaterThan(DEFAULT_RETRY_DELAYS_MS[i - 1]! * 1.2);
    }
  });
});

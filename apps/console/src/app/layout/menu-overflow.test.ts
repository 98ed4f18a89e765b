import { describe, expect, test } from 'vitest';
import { fittingItemCount } from './menu-overflow.ts';

// Three items 100 px wide with 4 px between them end at 100, 204 and 308; "More" is 80 px wide.
const ends = [100, 204, 308];

describe('fittingItemCount', () => {
  test('every item fits: no More button, whatever its width', () => {
    expect(fittingItemCount(ends, 80, 4, 308)).toBe(3);
    expect(fittingItemCount(ends, 80, 4, 1000)).toBe(3);
  });

  test('one item short: the items that fit beside the More button', () => {
    // 204 + 4 + 80 = 288 fits in 300; the third would end at 308.
    expect(fittingItemCount(ends, 80, 4, 300)).toBe(2);
    expect(fittingItemCount(ends, 80, 4, 287)).toBe(1);
  });

  test('no room beside the More button: everything goes into it', () => {
    expect(fittingItemCount(ends, 80, 4, 150)).toBe(0);
    expect(fittingItemCount(ends, 80, 4, 0)).toBe(0);
  });

  test('no items', () => {
    expect(fittingItemCount([], 80, 4, 0)).toBe(0);
  });
});

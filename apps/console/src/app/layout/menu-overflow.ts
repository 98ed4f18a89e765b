/**
 * How many menu items fit in a row of `available` pixels, the rest going into a "More" menu.
 * `ends` holds where each item ends when all are laid out in a row (from the row's start, gaps
 * included); the More button (`moreWidth`, after a `gap`) is needed only when not all fit.
 */
export function fittingItemCount(ends: readonly number[], moreWidth: number, gap: number, available: number): number {
  if (ends.length === 0 || ends[ends.length - 1]! <= available) return ends.length;
  let count = 0;
  while (count < ends.length && ends[count]! + gap + moreWidth <= available) count++;
  return count;
}

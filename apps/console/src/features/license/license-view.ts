import type { LicenseState } from '@voxplan/contracts';

/** The vendor is asked for a new licence in time: the screen warns this many days before it ends. */
export const EXPIRY_WARNING_DAYS = 30;

const DAY_MS = 24 * 60 * 60 * 1000;

export type Expiry = { kind: 'never' } | { kind: 'passed' } | { kind: 'soon'; days: number } | { kind: 'later'; days: number };

/** How a licence's end date stands at `now`: none, gone, within the warning days (counted up, so the last day is 1), or further off. */
export function expiryOf(expiresAt: string | null, now: Date): Expiry {
  if (expiresAt === null) return { kind: 'never' };
  const left = new Date(expiresAt).getTime() - now.getTime();
  if (left <= 0) return { kind: 'passed' };
  const days = Math.ceil(left / DAY_MS);
  return days <= EXPIRY_WARNING_DAYS ? { kind: 'soon', days } : { kind: 'later', days };
}

/** A limit's use as a percentage for its bar (a server over its limit, e.g. after a smaller licence, fills it), and its colour. */
export function usageOf(used: number, limit: number): { percent: number; color: string } {
  const percent = limit > 0 ? Math.min(100, (used / limit) * 100) : 100;
  // Filled shades 8 and 9 hold the AA ratio against the bar's track in both schemes.
  const color = used >= limit ? 'red.8' : percent >= 80 ? 'orange.8' : 'teal.8';
  return { percent, color };
}

/**
 * The state badge's colour: filled, in the darkest shades, since the light variants' text is below
 * the AA contrast ratio (as the dashboard's status badges).
 */
export const stateColors: Record<LicenseState, string> = {
  active: 'teal.9',
  poc: 'indigo.9',
  blocked: 'red.9',
  canceled: 'gray.9',
  expired: 'pink.9',
  without_license: 'gray.7',
};

/** The states under which the licence's own limits apply; any other falls back to the defaults. */
export function grantsLimits(state: LicenseState): boolean {
  return state === 'active' || state === 'poc';
}

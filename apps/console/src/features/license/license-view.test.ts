import { describe, expect, test } from 'vitest';
import { EXPIRY_WARNING_DAYS, expiryOf, usageOf } from './license-view.ts';

const now = new Date('2026-11-25T12:00:00Z');
const inDays = (days: number) => new Date(now.getTime() + days * 24 * 60 * 60 * 1000).toISOString();

describe('expiryOf', () => {
  test('a licence without an end date never expires', () => {
    expect(expiryOf(null, now)).toEqual({ kind: 'never' });
  });

  test('the warning starts 30 days before the end, and its last day counts as one day left', () => {
    expect(expiryOf(inDays(EXPIRY_WARNING_DAYS + 1), now)).toEqual({ kind: 'later', days: 31 });
    expect(expiryOf(inDays(EXPIRY_WARNING_DAYS), now)).toEqual({ kind: 'soon', days: 30 });
    expect(expiryOf(inDays(0.1), now)).toEqual({ kind: 'soon', days: 1 });
  });

  test('a date gone by, even by a second, has passed', () => {
    expect(expiryOf(now.toISOString(), now)).toEqual({ kind: 'passed' });
    expect(expiryOf(inDays(-3), now)).toEqual({ kind: 'passed' });
  });
});

describe('usageOf', () => {
  test('the bar fills with the share used and turns orange from 80 % and red at the limit', () => {
    expect(usageOf(3, 10)).toEqual({ percent: 30, color: 'teal.8' });
    expect(usageOf(8, 10)).toEqual({ percent: 80, color: 'orange.8' });
    expect(usageOf(10, 10)).toEqual({ percent: 100, color: 'red.8' });
  });

  test('a server over its limit (after a smaller licence) shows a full red bar, not one past its end', () => {
    expect(usageOf(14, 10)).toEqual({ percent: 100, color: 'red.8' });
  });
});

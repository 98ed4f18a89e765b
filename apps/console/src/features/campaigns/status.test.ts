import { describe, expect, test } from 'vitest';
import { actionsFor, nextActionFor } from './status.ts';

describe("a campaign's controls follow its status", () => {
  test('each status offers what the API takes from it, and the one that moves it on', () => {
    expect(actionsFor('draft')).toEqual(['start', 'cancel']);
    expect(actionsFor('running')).toEqual(['pause', 'cancel']);
    expect(actionsFor('paused')).toEqual(['resume', 'cancel']);
    expect(actionsFor('completed')).toEqual([]);
    expect(actionsFor('cancelled')).toEqual([]);
    expect(nextActionFor('draft')).toBe('start');
    expect(nextActionFor('running')).toBe('pause');
    expect(nextActionFor('paused')).toBe('resume');
    expect(nextActionFor('completed')).toBeUndefined();
  });
});

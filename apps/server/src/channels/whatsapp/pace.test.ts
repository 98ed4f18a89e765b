import { describe, expect, test } from 'vitest';
import { createPacer } from './pace.ts';

/** A clock that only moves when the pacer sleeps: what it counts is the slots, not the machine's speed. */
function fakeClock() {
  let now = 1_000_000;
  return { now: () => now, sleep: (ms: number) => Promise.resolve(void (now += ms)), at: () => now };
}

describe('the pace per number', () => {
  test('at 80 a second, 400 sends of one number take 5 seconds of slots, never more than 80 in any second', async () => {
    const clock = fakeClock();
    const pacer = createPacer(clock);
    const start = clock.at();
    const times: number[] = [];
    for (let index = 0; index < 400; index++) {
      await pacer.take(7, 80);
      times.push(clock.at() - start);
    }
    const perSecond = new Map<number, number>();
    for (const time of times) perSecond.set(Math.floor(time / 1000), (perSecond.get(Math.floor(time / 1000)) ?? 0) + 1);
    expect([...perSecond.values()]).toEqual([80, 80, 80, 80, 80]);
  });

  test('numbers do not share a pace: another number’s first send waits for nothing', async () => {
    const clock = fakeClock();
    const pacer = createPacer(clock);
    for (let index = 0; index < 10; index++) await pacer.take(1, 2);
    expect(await pacer.take(2, 2)).toBe(0);
    expect(await pacer.take(1, 2)).toBe(500);
  });
});

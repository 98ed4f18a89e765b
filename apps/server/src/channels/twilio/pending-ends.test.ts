import { afterEach, describe, expect, it, vi } from 'vitest';
import { createPendingEnds, type EndResult } from './pending-ends.ts';

const log = { info: vi.fn(), warn: vi.fn() };

describe('the call ends kept while the database is away', () => {
  afterEach(() => {
    vi.useRealTimers();
    vi.clearAllMocks();
  });

  it('tries an end every second until it is stored, then forgets it', async () => {
    vi.useFakeTimers();
    let databaseUp = false;
    const apply = vi.fn(async (): Promise<EndResult> => {
      if (!databaseUp) throw Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
      return 'stored';
    });
    const ends = createPendingEnds({ log, startInFlight: () => false });
    ends.add({ sessionId: 'CA1', apply });
    await vi.advanceTimersByTimeAsync(3_000);
    expect(apply).toHaveBeenCalledTimes(3);
    expect(ends.size).toBe(1);
    databaseUp = true;
    await vi.advanceTimersByTimeAsync(1_000);
    expect(apply).toHaveBeenCalledTimes(4);
    expect(ends.size).toBe(0);
    await vi.advanceTimersByTimeAsync(5_000);
    expect(apply).toHaveBeenCalledTimes(4);
    ends.close();
  });

  it('keeps an end with no session while that call starts here, and drops it once the start is over', async () => {
    let starting = true;
    let stored = false;
    const ends = createPendingEnds({ log, startInFlight: () => starting, retryMs: 60_000 });
    ends.add({ sessionId: 'CA2', apply: async () => (stored ? 'stored' : 'no-session') });
    await ends.flush();
    expect(ends.size).toBe(1);
    stored = true;
    starting = false;
    await ends.flush();
    expect(ends.size).toBe(0);
    expect(log.info).toHaveBeenCalledWith(expect.objectContaining({ session: 'CA2', result: 'stored' }), 'a kept call end was stored');

    ends.add({ sessionId: 'CA3', apply: async () => 'no-session' });
    await ends.flush();
    expect(ends.size).toBe(0);
    ends.close();
  });

  it('is bounded: past its size the oldest end goes, past its age an end is given up', async () => {
    let clock = 0;
    const failing = async (): Promise<EndResult> => {
      throw new Error('Connection terminated unexpectedly');
    };
    const ends = createPendingEnds({ log, startInFlight: () => false, maxPending: 2, maxAgeMs: 1_000, retryMs: 60_000, now: () => clock });
    ends.add({ sessionId: 'a', apply: failing });
    ends.add({ sessionId: 'b', apply: failing });
    ends.add({ sessionId: 'c', apply: failing });
    expect(ends.size).toBe(2);
    expect(log.warn).toHaveBeenCalledWith(expect.objectContaining({ session: 'a' }), expect.stringContaining('oldest was dropped'));
    clock = 2_000;
    await ends.flush();
    expect(ends.size).toBe(0);
    ends.close();
  });
});

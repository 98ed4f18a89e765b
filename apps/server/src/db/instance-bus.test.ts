import { describe, expect, it } from 'vitest';
import { coalesce } from './coalesce.ts';
import { createLocalBus } from './instance-bus.ts';

describe('coalesce', () => {
  it('gives every caller a run that began after it called, shared with the callers of the same moment', async () => {
    const runs: Array<(ok: boolean) => void> = [];
    const check = coalesce(() => new Promise<boolean>((resolve) => runs.push(resolve)));
    const first = check();
    expect(runs).toHaveLength(1);
    // Called while the first run is in flight: that run began too early for them.
    const second = check();
    const third = check();
    expect(runs).toHaveLength(1);
    let secondDone = false;
    void second.then(() => (secondDone = true));
    runs[0]!(true);
    expect(await first).toBe(true);
    await Promise.resolve();
    expect(secondDone).toBe(false);
    expect(runs).toHaveLength(2);
    runs[1]!(false);
    expect([await second, await third]).toEqual([false, false]);
    const fourth = check();
    expect(runs).toHaveLength(3);
    runs[2]!(true);
    expect(await fourth).toBe(true);
  });

  it('with a spacing, begins a run no sooner than that after the one before, shared by every caller until it begins', async () => {
    const began: number[] = [];
    const runs: Array<(ok: boolean) => void> = [];
    const check = coalesce(() => {
      began.push(performance.now());
      return new Promise<boolean>((resolve) => runs.push(resolve));
    }, 40);
    const first = check();
    expect(runs).toHaveLength(1);
    runs[0]!(true);
    expect(await first).toBe(true);
    // Right after the first ended: these wait for the spacing, then share one run.
    const [second, third] = [check(), check()];
    expect(runs).toHaveLength(1);
    await expect.poll(() => runs.length).toBe(2);
    const fourth = check();
    runs[1]!(true);
    expect([await second, await third]).toEqual([true, true]);
    // The fourth came while the second run was in flight: it gets a run of its own, later.
    await expect.poll(() => runs.length).toBe(3);
    runs[2]!(false);
    expect(await fourth).toBe(false);
    expect(began[1]! - began[0]!).toBeGreaterThanOrEqual(38);
    expect(began[2]! - began[1]!).toBeGreaterThanOrEqual(38);
  });

  it('starts the next run after a failed one', async () => {
    let calls = 0;
    const check = coalesce(async () => {
      calls++;
      if (calls === 1) throw new Error('lost');
      return true;
    });
    const first = check();
    const second = check();
    await expect(first).rejects.toThrow('lost');
    expect(await second).toBe(true);
  });
});

describe('createLocalBus', () => {
  it('hands each listener of a topic a copy of every message, after the publisher, until it stops', async () => {
    const logged: string[] = [];
    const bus = createLocalBus((message) => logged.push(message));
    const heard: unknown[] = [];
    const stop = bus.subscribe('sessions', (message) => heard.push(message));
    bus.subscribe('sessions', () => {
      throw new Error('broken listener');
    });
    bus.subscribe('other', (message) => heard.push(['other', message]));
    const message = { id: 1, list: [1, 2] };
    bus.publish('sessions', message);
    expect(heard).toEqual([]);
    await Promise.resolve();
    expect(heard).toEqual([{ id: 1, list: [1, 2] }]);
    expect(heard[0]).not.toBe(message);
    expect(logged).toEqual(['a listener of sessions failed: broken listener']);
    stop();
    bus.publish('sessions', { id: 2 });
    await Promise.resolve();
    expect(heard).toHaveLength(1);
  });

  it('is heard on a topic only while someone listens to it, and makes nothing of a message nobody hears', async () => {
    const bus = createLocalBus();
    expect(bus.heard('sessions')).toBe(false);
    const heard: unknown[] = [];
    const stop = bus.subscribe('sessions', (message) => heard.push(message));
    expect(bus.heard('sessions')).toBe(true);
    expect(bus.heard('other')).toBe(false);
    stop();
    expect(bus.heard('sessions')).toBe(false);
    // Not even copied: a message that cannot be made into JSON is no error when nobody listens.
    const circular: Record<string, unknown> = {};
    circular.self = circular;
    expect(() => bus.publish('sessions', circular)).not.toThrow();
    bus.subscribe('sessions', (message) => heard.push(message));
    await Promise.resolve();
    expect(heard).toEqual([]);
  });
});

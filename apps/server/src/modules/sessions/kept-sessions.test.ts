import type { Session } from '@voxplan/engine';
import { describe, expect, test } from 'vitest';
import { createKeptSessions } from './kept-sessions.ts';

const session = (id: string, extra: Partial<Session> = {}) => ({ id, channel: 'voice', status: 'waiting', ...extra }) as Session;

describe('sessions kept for their next turn', () => {
  test('taken only while the row read is the one this instance wrote', () => {
    const kept = createKeptSessions();
    const call = session('CA1');
    kept.keep(call, 3, '2026-11-29T10:00:00.000Z', false);
    expect(kept.take({ id: 'CA1', revision: 3, updated_time: '2026-11-29T10:00:00.000Z' })).toBe(call);
    // Another instance's turn moved the revision on, or a row of the same revision written elsewhere.
    expect(kept.take({ id: 'CA1', revision: 4, updated_time: '2026-11-29T10:00:01.000Z' })).toBeUndefined();
    expect(kept.take({ id: 'CA1', revision: 3, updated_time: '2026-11-29T10:00:02.000Z' })).toBeUndefined();
    expect(kept.take({ id: 'CA2', revision: 3, updated_time: '2026-11-29T10:00:00.000Z' })).toBeUndefined();
  });

  test('a call just ended is kept for its end only; chats are not kept; the oldest go past the limit', () => {
    const kept = createKeptSessions(2);
    kept.keep(session('CA1'), 1, 't', false);
    kept.keep(session('CA1', { status: 'ended' }), 2, 't', false);
    expect(kept.take({ id: 'CA1', revision: 2, updated_time: 't' })?.status).toBe('ended');
    kept.keep(session('CA1', { status: 'ended' }), 3, 't', true);
    expect(kept.size).toBe(0);
    kept.keep(session('chat', { channel: 'chat' }), 1, 't', false);
    expect(kept.size).toBe(0);
    for (const id of ['a', 'b', 'c']) kept.keep(session(id), 1, 't', false);
    expect([kept.take({ id: 'a', revision: 1, updated_time: 't' }), kept.size]).toEqual([undefined, 2]);
    expect(kept.take({ id: 'c', revision: 1, updated_time: 't' })?.id).toBe('c');
  });
});

import { describe, expect, it } from 'vitest';
import { DecorationStore } from './decorations.ts';

describe('DecorationStore marks', () => {
  it('gives each block its mark, alongside the test path, and clears them when replaced', () => {
    const store = new DecorationStore();
    store.setPath(['a'], 'a');
    store.setMarks({ a: { tone: 'path', badge: '1' }, b: { heat: 0.5, title: '3 ended here' } });
    expect(store.get('a')).toMatchObject({ visited: true, current: true, mark: { tone: 'path', badge: '1' } });
    expect(store.get('b').mark).toEqual({ heat: 0.5, title: '3 ended here' });
    store.setMarks({});
    expect(store.get('b').mark).toBeUndefined();
    expect(store.get('a').visited).toBe(true);
  });

  it('keeps the decoration object of a block whose mark did not change, so only changed blocks redraw', () => {
    const store = new DecorationStore();
    store.setMarks({ a: { tone: 'path' }, b: { tone: 'current' } });
    const before = { a: store.get('a'), b: store.get('b') };
    // A new record with equal values for `a` (callers rebuild the record on each step of a replay).
    store.setMarks({ a: { tone: 'path' }, b: { tone: 'path' } });
    expect(store.get('a')).toBe(before.a);
    expect(store.get('b')).not.toBe(before.b);
  });
});

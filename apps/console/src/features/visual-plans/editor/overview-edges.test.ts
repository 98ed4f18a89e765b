import type { Edge, InternalNode } from '@xyflow/react';
import { describe, expect, it } from 'vitest';
import { entryY, plainExitY } from './canvas-view.ts';
import { overviewCell, overviewPaths } from './overview-edges.tsx';

function node(id: string, type: string, x: number, y: number): InternalNode {
  return { id, type, data: {}, position: { x, y }, measured: { width: 200, height: 100 }, internals: { positionAbsolute: { x, y }, z: 0, userNode: { id, position: { x, y }, data: {} } } } as InternalNode;
}

const edge = (source: string, sourceHandle: string, target: string, animated = false): Edge => ({ id: `${source}-${sourceHandle}`, source, sourceHandle, target, animated });

describe('overviewPaths', () => {
  it('draws each line from the row of its exit on a plain block to the entry of its target, the lit ones apart', () => {
    // A destination's exits in their order: answer, busy, no_answer, failed.
    const nodes = new Map([
      ['dial', node('dial', 'destination', 0, 0)],
      ['a', node('a', 'hangup', 500, 0)],
      ['b', node('b', 'hangup', 500, 300)],
    ]);
    const paths = overviewPaths([edge('dial', 'busy', 'a'), edge('dial', 'failed', 'b', true), edge('dial', 'answer', 'missing')], nodes);
    expect(paths).toMatchObject({ count: 2, litCount: 1 });
    const start = (segment: string) => segment.match(/^M([\d.]+),([\d.]+)/)!.slice(1).map(Number);
    const end = (segment: string) => segment.match(/ ([\d.]+),([\d.]+)$/)!.slice(1).map(Number);
    expect(paths.plain).toHaveLength(1);
    expect(start(paths.plain[0]!)).toEqual([200, Math.round(plainExitY(1) * 10) / 10]);
    expect(end(paths.plain[0]!)).toEqual([500, entryY]);
    expect(start(paths.lit)).toEqual([200, Math.round(plainExitY(3) * 10) / 10]);
    expect(end(paths.lit)).toEqual([500, 300 + entryY]);
  });

  it('groups the lines by the squares of the plan they join, one path each, so a tile of the screen draws only those near it', () => {
    const far = overviewCell * 3;
    const nodes = new Map([
      ['a', node('a', 'play_message', 0, 0)],
      ['b', node('b', 'play_message', 400, 0)],
      ['c', node('c', 'play_message', far, 0)],
      ['d', node('d', 'play_message', far + 400, far)],
      ['e', node('e', 'hangup', far + 800, far)],
    ]);
    const lines = [edge('a', 'next', 'b'), edge('c', 'next', 'd'), edge('b', 'next', 'c'), edge('d', 'next', 'e'), edge('a', 'other', 'c')];
    const paths = overviewPaths(lines, nodes);
    const starts = (d: string) => [...d.matchAll(/M([\d.]+),/g)].map((match) => Number(match[1]));
    // a → b stays in the first square; b → c and a → c join it to c's square, one path; c → d goes down to d's square, and d → e stays there.
    expect(paths.plain.map(starts)).toEqual([[200], [far + 200], [600, 200], [far + 600]]);
    expect(paths).toMatchObject({ count: 5, litCount: 0, lit: '' });
  });
});

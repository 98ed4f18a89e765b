import type { Edge, InternalNode } from '@xyflow/react';
import { describe, expect, it } from 'vitest';
import { entryY, plainExitY } from './canvas-view.ts';
import { overviewPaths } from './overview-edges.tsx';

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
    expect(start(paths.plain)).toEqual([200, Math.round(plainExitY(1) * 10) / 10]);
    expect(end(paths.plain)).toEqual([500, entryY]);
    expect(start(paths.lit)).toEqual([200, Math.round(plainExitY(3) * 10) / 10]);
    expect(end(paths.lit)).toEqual([500, 300 + entryY]);
  });
});

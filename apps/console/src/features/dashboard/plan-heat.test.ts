import type { StatsFigures, StatsPlanDetail } from '@voxplan/contracts';
import { describe, expect, test } from 'vitest';
import { digitsByMenu, dropOffByBlock, heatOf } from './plan-heat.ts';

const figures = (sessions: number): StatsFigures => ({
  sessions,
  calls: sessions,
  chats: 0,
  routed: 0,
  retained: 0,
  abandoned: sessions,
  failed: 0,
  missed: 0,
  expired: 0,
  retention_rate: 0,
  average_duration_s: 10,
});

const detail: StatsPlanDetail = {
  plan_id: 4,
  versions: [1],
  figures: figures(10),
  nodes: [
    { plan_id: 4, node_id: 'start', entered: 10, ended: 0 },
    { plan_id: 4, node_id: 'menu', entered: 12, ended: 6 },
    { plan_id: 4, node_id: 'bye', entered: 4, ended: 3 },
    { plan_id: 9, node_id: 'menu', entered: 1, ended: 1 },
  ],
  digits: [
    { plan_id: 4, node_id: 'menu', digits: '1', count: 4 },
    { plan_id: 4, node_id: 'menu', digits: '9', count: 5 },
    { plan_id: 4, node_id: 'other', digits: '2', count: 1 },
    { plan_id: 9, node_id: 'menu', digits: '3', count: 7 },
  ],
};

describe("a plan's statistics on its canvas", () => {
  test('drop-off per block of the plan itself, as a share of its sessions; the hottest is the block where most ended', () => {
    const byBlock = dropOffByBlock(detail);
    expect(Object.fromEntries(byBlock)).toEqual({
      start: { entered: 10, ended: 0, share: 0 },
      menu: { entered: 12, ended: 6, share: 0.6 },
      bye: { entered: 4, ended: 3, share: 0.3 },
    });
    expect(heatOf(byBlock.get('menu')!, byBlock)).toBe(1);
    expect(heatOf(byBlock.get('bye')!, byBlock)).toBe(0.5);
    expect(heatOf(byBlock.get('start')!, byBlock)).toBe(0);
  });

  test('no sessions: nothing is hot', () => {
    const empty = dropOffByBlock({ ...detail, figures: figures(0), nodes: [{ plan_id: 4, node_id: 'start', entered: 0, ended: 0 }] });
    expect(heatOf(empty.get('start')!, empty)).toBe(0);
    expect(empty.get('start')!.share).toBe(0);
  });

  test("keys per menu of the plan itself, most pressed first; called plans' menus left out", () => {
    expect(digitsByMenu(detail)).toEqual([
      { nodeId: 'menu', total: 9, keys: [{ digits: '9', count: 5 }, { digits: '1', count: 4 }] },
      { nodeId: 'other', total: 1, keys: [{ digits: '2', count: 1 }] },
    ]);
  });
});

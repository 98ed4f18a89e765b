import { describe, expect, it } from 'vitest';
import { replayView } from './report-path.ts';

const at = (second: number) => new Date(Date.UTC(2026, 10, 25, 12, 0, second)).toISOString();
const edges = [
  { id: 'start-next', source: 'start', source_exit: 'next' },
  { id: 'menu-1', source: 'menu', source_exit: '1' },
  { id: 'menu-2', source: 'menu', source_exit: '2' },
  { id: 'sales-next', source: 'sales', source_exit: 'next' },
];
const planNodes = ['start', 'menu', 'sales', 'support', 'bye'];
// start → menu (invalid, back to menu) → menu → sales → a call_plan's block in plan 9 → bye
const report = {
  plan_id: 4,
  failure: null,
  nodes: [
    { plan_id: 4, node_id: 'start', type: 'start', at: at(0), exit: 'next' },
    { plan_id: 4, node_id: 'menu', type: 'voice_menu', at: at(1), exit: 'invalid' },
    { plan_id: 4, node_id: 'menu', type: 'voice_menu', at: at(5), exit: '1' },
    { plan_id: 4, node_id: 'sales', type: 'call_plan', at: at(9), exit: 'next' },
    { plan_id: 9, node_id: 'other', type: 'play_message', at: at(10), exit: 'next' },
    { plan_id: 4, node_id: 'bye', type: 'hangup', at: at(12), exit: null },
  ],
};

describe('a report replayed on its plan', () => {
  it('at the first step: the start block is current, nothing taken yet, the never-entered support dimmed', () => {
    const view = replayView(report, 0, edges, planNodes);
    expect(view.current).toBe('start');
    expect(view.edgeIds.size).toBe(0);
    expect(view.marks).toEqual({ start: { tone: 'current', badge: '1' }, support: { tone: 'dim' } });
  });

  it('numbers a block entered twice by both steps and lights the exits left before the current step', () => {
    const view = replayView(report, 3, edges, planNodes);
    expect(view.current).toBe('sales');
    expect([...view.edgeIds].sort()).toEqual(['menu-1', 'start-next']);
    expect(view.marks.menu).toEqual({ tone: 'path', badge: '2 · 3' });
    expect(view.marks.sales).toEqual({ tone: 'current', badge: '4' });
    // Entered later in the call: plain until the replay gets there.
    expect(view.marks.bye).toBeUndefined();
  });

  it('in another plan (call_plan), no block of this one is current', () => {
    const view = replayView(report, 4, edges, planNodes);
    expect(view.current).toBeUndefined();
    expect(view.edgeIds.has('sales-next')).toBe(true);
  });

  it('marks the block that failed at the last step', () => {
    const failed = { ...report, failure: { code: 'x', message: 'y', plan_id: 4, node_id: 'bye' } };
    expect(replayView(failed, 5, edges, planNodes).marks.bye).toEqual({ tone: 'alert', badge: '6' });
    expect(replayView(failed, 4, edges, planNodes).marks.bye).toBeUndefined();
  });
});

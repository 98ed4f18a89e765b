import { describe, expect, it } from 'vitest';
import { chromeInsets, exitButtonsReach, readableZoom, viewAfterAdd } from './canvas-view.ts';

const block = (x: number, y = 0) => ({ x, y, width: 200, height: 90 });
const [width, height] = [1000, 800];

/** Where a rectangle of the plan lands on the screen at a view. */
const onScreen = (rect: { x: number; y: number; width: number; height: number }, view: { x: number; y: number; zoom: number }) => ({
  left: rect.x * view.zoom + view.x,
  top: rect.y * view.zoom + view.y,
  right: (rect.x + rect.width + exitButtonsReach) * view.zoom + view.x,
  bottom: (rect.y + rect.height) * view.zoom + view.y,
});

describe('viewAfterAdd', () => {
  it('leaves the view where it is while the whole plan, the new block\'s "+" included, is still in view', () => {
    expect(viewAfterAdd({ x: 0, y: 0, width: 500, height: 90 }, block(300), { x: 100, y: 100, zoom: 1 }, width, height, false)).toBeUndefined();
  });

  it('fits the whole plan past the canvas\'s controls when it no longer fits, no closer than the person had it', () => {
    const plan = { x: 0, y: 0, width: 1300, height: 90 };
    const view = viewAfterAdd(plan, block(1100), { x: 100, y: 100, zoom: 1 }, width, height, true)!;
    expect(view.zoom).toBeGreaterThanOrEqual(readableZoom);
    expect(view.zoom).toBeLessThan(1);
    const inset = chromeInsets(true);
    const seen = onScreen(plan, view);
    expect(seen.left).toBeGreaterThanOrEqual(inset.left - 0.5);
    expect(seen.right).toBeLessThanOrEqual(width - inset.right + 0.5);
    expect(seen.top).toBeGreaterThanOrEqual(inset.top - 0.5);
    expect(seen.bottom).toBeLessThanOrEqual(height - inset.bottom + 0.5);
    // A plan out of view only because the person panned away is fitted at their zoom, not closer.
    expect(viewAfterAdd({ x: 0, y: 0, width: 300, height: 90 }, block(100), { x: -2000, y: 0, zoom: 0.7 }, width, height, false)?.zoom).toBe(0.7);
  });

  it('keeps the minimap off the plan: it leaves more room at the bottom when shown', () => {
    const plan = { x: 0, y: 0, width: 400, height: 700 };
    const shown = viewAfterAdd(plan, block(0, 610), { x: 0, y: 0, zoom: 1 }, width, height, true)!;
    const hidden = viewAfterAdd(plan, block(0, 610), { x: 0, y: 0, zoom: 1 }, width, height, false)!;
    expect(onScreen(plan, shown).bottom).toBeLessThanOrEqual(height - chromeInsets(true).bottom + 0.5);
    expect(shown.zoom).toBeLessThan(hidden.zoom);
  });

  it('too big to read whole, zooms out no further than readable and pans the least that shows the new block', () => {
    const plan = { x: 0, y: 0, width: 5000, height: 90 };
    const added = block(4800);
    const view = viewAfterAdd(plan, added, { x: 0, y: 100, zoom: 1 }, width, height, false)!;
    expect(view.zoom).toBe(readableZoom);
    const seen = onScreen(added, view);
    // In view, against the right edge's room: the least pan.
    expect(seen.left).toBeGreaterThanOrEqual(chromeInsets(false).left);
    expect(seen.right).toBeCloseTo(width - chromeInsets(false).right);
    // Zoomed out by hand further than readable, the zoom stays the person's.
    expect(viewAfterAdd(plan, added, { x: 0, y: 100, zoom: 0.2 }, width, height, false)?.zoom).toBe(0.2);
  });
});

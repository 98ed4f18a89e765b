import { describe, expect, it } from 'vitest';
import { chromeInsets } from './canvas-view.ts';
import { openingMinZoom, openingView } from './opening-view.ts';

const inset = chromeInsets(false);
const onScreen = (rect: { x: number; y: number; width: number; height: number }, view: { x: number; y: number; zoom: number }) => ({
  left: rect.x * view.zoom + view.x,
  top: rect.y * view.zoom + view.y,
  right: (rect.x + rect.width) * view.zoom + view.x,
  bottom: (rect.y + rect.height) * view.zoom + view.y,
});

describe('openingView', () => {
  it('shows a small plan at 100 % at most, clear of the zoom buttons and the fold buttons', () => {
    const plan = { x: 0, y: 0, width: 400, height: 200 };
    const view = openingView(plan, { x: 0, y: 0, width: 180, height: 50 }, 1000, 700, inset);
    expect(view.zoom).toBe(1);
    const seen = onScreen(plan, view);
    expect(seen.left).toBeGreaterThanOrEqual(inset.left);
    expect(seen.top).toBeGreaterThanOrEqual(inset.top);
  });

  it('fits a plan that reads at its fitted zoom, every side clear of the controls', () => {
    const plan = { x: -100, y: 50, width: 1200, height: 500 };
    const view = openingView(plan, undefined, 1000, 700, inset);
    expect(view.zoom).toBeGreaterThanOrEqual(openingMinZoom);
    expect(view.zoom).toBeLessThan(1);
    const seen = onScreen(plan, view);
    expect(seen.left).toBeGreaterThanOrEqual(inset.left - 0.5);
    expect(seen.right).toBeLessThanOrEqual(1000 - inset.right + 0.5);
    expect(seen.top).toBeGreaterThanOrEqual(inset.top - 0.5);
    expect(seen.bottom).toBeLessThanOrEqual(700 - inset.bottom + 0.5);
  });

  it('opens a plan too big to read whole at the least readable zoom, its start block in view, past the zoom buttons', () => {
    const plan = { x: 0, y: 0, width: 1500, height: 600 };
    const start = { x: 0, y: 250, width: 180, height: 50 };
    const view = openingView(plan, start, 390, 500, inset);
    expect(view.zoom).toBe(openingMinZoom);
    const seen = onScreen(start, view);
    expect(seen.left).toBeGreaterThanOrEqual(inset.left);
    expect(seen.right).toBeLessThanOrEqual(390 - inset.right);
    expect(seen.top).toBeGreaterThanOrEqual(inset.top);
    expect(seen.bottom).toBeLessThanOrEqual(500 - inset.bottom);
  });

  it('brings a start block that is not at the plan\'s edge into view', () => {
    const plan = { x: -600, y: 0, width: 1500, height: 1200 };
    const start = { x: 300, y: 900, width: 180, height: 50 };
    const seen = onScreen(start, openingView(plan, start, 500, 500, inset));
    expect(seen.right).toBeLessThanOrEqual(500 - inset.right);
    expect(seen.bottom).toBeLessThanOrEqual(500 - inset.bottom);
  });

  it('on a read-only canvas, fits the whole plan however small', () => {
    const view = openingView({ x: 0, y: 0, width: 3000, height: 600 }, undefined, 1000, 700, inset, 0.05);
    expect(view.zoom).toBeLessThan(openingMinZoom);
  });
});

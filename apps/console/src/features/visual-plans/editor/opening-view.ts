/**
 * Where every plan canvas opens (the editor, a version, a report's replay, the dashboard's heat
 * map): the whole plan, clear of the canvas's own controls, at 100 % at most. In the editor, a plan
 * that would only fit at a zoom too small to read opens at `openingMinZoom` instead, on its start,
 * and the person pans to the rest (issue 36: an 8-block plan opened at 31-37 %, its text 4 px on a
 * phone). The read-only canvases are there to see a whole path or where sessions ended, so they
 * show the whole plan, however small (`minZoom`).
 */
import { getViewportForBounds, type Rect, type Viewport } from '@xyflow/react';
import { canvasMinZoom, fitMaxZoom } from './canvas-view.ts';

/**
 * The least zoom the editor opens at by itself: a block's name (14 px at 100 %) is 8.4 px on
 * screen and its summary (12 px) 7.2 px, still read without zooming; an 8-block plan fits whole
 * beside the menu of a 1280 px screen (at 64 %).
 */
export const openingMinZoom = 0.6;

/** Room kept free along each side of the canvas, in screen px (canvas-view.ts `chromeInsets`). */
export interface Insets {
  top: number;
  right: number;
  bottom: number;
  left: number;
}

/** A little air between the plan and the controls' edge. */
const margin = 8;

/**
 * The view the canvas opens with. `plan` is the rectangle the blocks cover and `start` the start
 * block's, in the plan's coordinates; `width` and `height` the canvas's size on screen.
 */
export function openingView(plan: Rect | undefined, start: Rect | undefined, width: number, height: number, inset: Insets, minZoom = openingMinZoom): Viewport {
  if (!plan) return { x: inset.left + margin, y: inset.top + margin, zoom: fitMaxZoom };
  const room = {
    left: inset.left + margin,
    top: inset.top + margin,
    right: Math.max(inset.left + margin + 1, width - inset.right - margin),
    bottom: Math.max(inset.top + margin + 1, height - inset.bottom - margin),
  };
  const padding = { top: `${room.top}px`, left: `${room.left}px`, right: `${width - room.right}px`, bottom: `${height - room.bottom}px` } as const;
  const fitted = getViewportForBounds(plan, width, height, canvasMinZoom, fitMaxZoom, padding);
  if (fitted.zoom >= minZoom) return fitted;

  const zoom = minZoom;
  const across = room.right - room.left;
  const down = room.bottom - room.top;
  // Along each axis: the plan centred when it fits at this zoom, else from its left (top) edge,
  // moved only as far as it takes to bring the start block wholly into view.
  const axis = (planFrom: number, planSize: number, roomFrom: number, roomSize: number, startFrom?: number, startSize?: number): number => {
    if (planSize * zoom <= roomSize) return roomFrom + (roomSize - planSize * zoom) / 2 - planFrom * zoom;
    let offset = roomFrom - planFrom * zoom;
    if (startFrom !== undefined && startSize !== undefined) {
      const startEnd = (startFrom + startSize) * zoom + offset;
      if (startEnd > roomFrom + roomSize) offset -= Math.min(startEnd - (roomFrom + roomSize), startFrom * zoom + offset - roomFrom);
    }
    return offset;
  };
  return {
    x: axis(plan.x, plan.width, room.left, across, start?.x, start?.width),
    y: axis(plan.y, plan.height, room.top, down, start?.y, start?.height),
    zoom,
  };
}

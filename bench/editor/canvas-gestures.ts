/**
 * What a person does on an opened canvas, timed by the editor bench (run.ts): panning and zooming,
 * typing into a block's field, zooming onto a block.
 */
import type { Page } from 'playwright-core';
import { mainThread, type Opened, probeOf, since } from './page-probe.ts';

/** A point of the canvas where a drag pans (the pane, not a block or an edge), near `near`. */
async function panePoint(page: Page, near: { x: number; y: number }): Promise<{ x: number; y: number }> {
  const found = await page.evaluate(({ x, y }) => {
    for (let radius = 0; radius < 400; radius += 3) {
      for (let step = 0; step < 16; step++) {
        const angle = (step / 16) * 2 * Math.PI;
        const px = x + radius * Math.cos(angle);
        const py = y + radius * Math.sin(angle);
        if (document.elementFromPoint(px, py)?.classList.contains('react-flow__pane')) return { x: px, y: py };
      }
    }
    return null;
  }, near);
  if (!found) throw new Error('no empty spot of the canvas to drag');
  return found;
}

export type Motion = Awaited<ReturnType<typeof panAndZoom>>;

/**
 * Drags and wheel-zooms the canvas for `seconds`; frames counted by requestAnimationFrame in the
 * page. With `shots`, the canvas is kept as `<shots>-out.png` and `<shots>-in.png` in the first
 * round, as the gestures saw it zoomed out and in.
 */
export async function panAndZoom(opened: Opened, seconds: number, shots?: string) {
  const { page, cdp } = opened;
  const box = (await page.getByTestId('plan-canvas').boundingBox())!;
  const centre = { x: box.x + box.width / 2, y: box.y + box.height / 2 };
  const before = await mainThread(cdp);
  const firstFrame = (await probeOf(page)).frames.length;
  const start = await page.evaluate(() => performance.now());
  const deadline = Date.now() + seconds * 1_000;
  let round = 0;
  while (Date.now() < deadline) {
    // Zoom in towards a block, pan around at that zoom (blocks come into view and leave it), zoom out.
    if (shots && round === 0) await page.screenshot({ path: `${shots}-out.png` });
    for (let step = 0; step < 8; step++) {
      await page.mouse.move(centre.x, centre.y);
      await page.mouse.wheel(0, -120);
    }
    if (shots && round === 0) await page.waitForTimeout(300).then(() => page.screenshot({ path: `${shots}-in.png` }));
    for (const direction of [1, -1]) {
      const from = await panePoint(page, centre);
      await page.mouse.move(from.x, from.y);
      await page.mouse.down();
      await page.mouse.move(from.x + direction * 300, from.y + direction * (round % 2 ? 120 : -120), { steps: 30 });
      await page.mouse.up();
    }
    for (let step = 0; step < 8; step++) {
      await page.mouse.move(centre.x, centre.y);
      await page.mouse.wheel(0, 120);
    }
    round++;
  }
  const end = await page.evaluate(() => performance.now());
  const time = since(await mainThread(cdp), before);
  const frames = (await probeOf(page)).frames.slice(firstFrame).filter((at) => at <= end);
  const gaps = frames.slice(1).map((at, index) => at - frames[index]!);
  gaps.sort((a, b) => a - b);
  return {
    fps: (frames.length / (end - start)) * 1_000,
    frames: frames.length,
    seconds: (end - start) / 1_000,
    p95FrameMs: gaps[Math.floor(gaps.length * 0.95)] ?? 0,
    longestFrameMs: gaps.at(-1) ?? 0,
    cpuPerFrameMs: time.task / Math.max(1, frames.length),
    time,
  };
}

/** `panAndZoom` with each of `styles` (name → CSS) added to the page in turn, `rounds` times: each style's frame rates. */
export async function panWithStyles(opened: Opened, seconds: number, styles: Record<string, string>, rounds: number): Promise<Record<string, number[]>> {
  const fps: Record<string, number[]> = {};
  for (let round = 0; round < rounds; round++) {
    for (const [name, css] of Object.entries(styles)) {
      const added = css ? await opened.page.addStyleTag({ content: css }) : undefined;
      await opened.page.waitForTimeout(300);
      (fps[name] ??= []).push((await panAndZoom(opened, seconds)).fps);
      await added?.evaluate((element) => (element as Element).remove());
    }
  }
  return fps;
}

/**
 * Selects the block, then types into its voice text one character at a time: for each, the time
 * from the key's event to the DOM mutation that shows the field's new text in the block's summary
 * (and to the next frame after it).
 */
export async function editLatency(opened: Opened, nodeId: string, keystrokes: number) {
  const { page } = opened;
  await page.locator(`[data-testid="plan-node"][data-node-id="${nodeId}"]`).click();
  const field = page.getByTestId('block-panel').getByTestId('field-voice_text');
  await field.waitFor();
  await field.click();
  await page.keyboard.press('ControlOrMeta+a');
  await page.evaluate((id) => {
    const samples: { shownMs: number; frameMs: number }[] = [];
    (window as unknown as { __edits: typeof samples }).__edits = samples;
    const input = document.querySelector<HTMLInputElement | HTMLTextAreaElement>('[data-testid="block-panel"] [data-testid="field-voice_text"]')!;
    let pending: { start: number; value?: string } | undefined;
    const check = () => {
      if (pending?.value === undefined) return;
      const summary = document.querySelector(`[data-testid="plan-node"][data-node-id="${id}"] [data-testid="node-summary"]`);
      if (summary?.textContent !== pending.value) return;
      const { start } = pending;
      pending = undefined;
      const shown = performance.now();
      requestAnimationFrame(() => samples.push({ shownMs: shown - start, frameMs: performance.now() - start }));
    };
    input.addEventListener('keydown', (event) => (pending = { start: event.timeStamp }), true);
    input.addEventListener('input', () => {
      // The summary shows the text on one line, trimmed.
      if (pending) pending.value = input.value.replace(/\s+/g, ' ').trim();
      check();
    });
    new MutationObserver(check).observe(document.querySelector('.react-flow__nodes')!, { subtree: true, childList: true, characterData: true });
  }, nodeId);
  const text = 'Edited by the bench, line';
  for (let index = 0; index < keystrokes; index++) {
    await page.keyboard.type(text[index % text.length]!);
    await page.waitForTimeout(60);
  }
  await page.waitForTimeout(200);
  const samples = await page.evaluate(() => (window as unknown as { __edits: { shownMs: number; frameMs: number }[] }).__edits);
  const sorted = (values: number[]) => [...values].sort((a, b) => a - b);
  const shown = sorted(samples.map((sample) => sample.shownMs));
  const frame = sorted(samples.map((sample) => sample.frameMs));
  const at = (values: number[], share: number) => values[Math.min(values.length - 1, Math.floor(values.length * share))] ?? Number.NaN;
  return {
    count: samples.length,
    medianMs: at(shown, 0.5),
    p95Ms: at(shown, 0.95),
    maxMs: shown.at(-1) ?? Number.NaN,
    medianFrameMs: at(frame, 0.5),
    maxFrameMs: frame.at(-1) ?? Number.NaN,
  };
}

/** Wheel-zooms in on a block until the view is at 100 % or more, as one does to work on it. */
export async function zoomOnto(page: Page, nodeId: string) {
  const scale = () =>
    page.evaluate(() => Number(/scale\(([\d.]+)\)/.exec(document.querySelector<HTMLElement>('.react-flow__viewport')?.style.transform ?? '')?.[1] ?? 0));
  for (let step = 0; step < 60 && (await scale()) < 1; step++) {
    const box = await page.locator(`[data-testid="plan-node"][data-node-id="${nodeId}"]`).boundingBox();
    if (!box) throw new Error(`block ${nodeId} left the view while zooming onto it`);
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await page.mouse.wheel(0, -200);
    await page.waitForTimeout(30);
  }
}

import { mkdir } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';

/**
 * Where the e2e tests keep what a person would have seen: `test-results/screenshots/<test file>/`
 * at the repository's root (git ignores it; CI keeps it in its working tree). E2E_SCREENSHOT_DIR
 * puts them elsewhere.
 */
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
export const SCREENSHOT_DIR = process.env.E2E_SCREENSHOT_DIR ?? join(ROOT, 'test-results', 'screenshots');

/** The widths a person's screen has: a laptop and a phone. */
export const SCREEN_WIDTHS = [1280, 390] as const;
const HEIGHT_OF: Record<(typeof SCREEN_WIDTHS)[number], number> = { 1280: 800, 390: 844 };

export interface ScreenshotOptions {
  /** The folder under SCREENSHOT_DIR: usually the test file's name. */
  group: string;
  /** Schemes to shoot; both unless the state only exists in one. */
  schemes?: readonly ('light' | 'dark')[];
  /** Widths to shoot; both unless the state only exists at one. */
  widths?: readonly (typeof SCREEN_WIDTHS)[number][];
  /** Runs after each resize and scheme change, before the shot (for example, wait for a re-fit). */
  settle?: (page: Page) => Promise<void>;
}

/**
 * Shoots the page as it is now at 1280 and 390 px wide, in light and dark, and restores the page's
 * size and scheme after. The language is the page's own: a test shoots each state once per locale
 * it runs in. Files: `<group>/<state>-<locale>-<width>-<scheme>.png`; returns their paths.
 */
export async function screenshotStates(page: Page, state: string, options: ScreenshotOptions): Promise<string[]> {
  const { group, schemes = ['light', 'dark'], widths = SCREEN_WIDTHS, settle } = options;
  const dir = join(SCREENSHOT_DIR, group);
  await mkdir(dir, { recursive: true });
  const locale = await page.evaluate(() => document.documentElement.lang || navigator.language);
  const original = page.viewportSize();
  const originalScheme = await page.evaluate(() => (matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light'));
  const paths: string[] = [];
  for (const width of widths) {
    await page.setViewportSize({ width, height: HEIGHT_OF[width] });
    for (const scheme of schemes) {
      await page.emulateMedia({ colorScheme: scheme });
      await page.evaluate(() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done))));
      await settle?.(page);
      const path = join(dir, `${state}-${locale.split('-')[0]}-${width}-${scheme}.png`);
      await page.screenshot({ path });
      paths.push(path);
    }
  }
  if (original) await page.setViewportSize(original);
  await page.emulateMedia({ colorScheme: originalScheme });
  // A media query's change reaches React a frame later: the caller's next look sees the restored layout.
  await page.evaluate(() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done))));
  return paths;
}

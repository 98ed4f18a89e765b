import type { Locator, Page } from 'playwright-core';

/** The plan editor's canvas as the e2e tests find it: a block by its id or its type, the lines drawn. */
export const nodeOf = (page: Page, id: string): Locator => page.locator(`[data-testid="plan-node"][data-node-id="${id}"]`);
export const nodesOfType = (page: Page, type: string): Locator => page.locator(`[data-testid="plan-node"][data-node-type="${type}"]`);
export const edgeCount = (page: Page) => page.locator('.react-flow__edge').count();

/**
 * The contrast ratio (WCAG's relative luminance) of the canvas's first line against what shows
 * behind it: the first background up from the canvas that is not transparent.
 */
export function lineContrast(canvas: Locator): Promise<number> {
  return canvas.evaluate((element) => {
    const rgb = (css: string) => (css.match(/[\d.]+/g) ?? []).map(Number);
    const luminance = ([r = 0, g = 0, b = 0]: number[]) => {
      const linear = (channel: number) => {
        const value = channel / 255;
        return value <= 0.04045 ? value / 12.92 : ((value + 0.055) / 1.055) ** 2.4;
      };
      return 0.2126 * linear(r) + 0.7152 * linear(g) + 0.0722 * linear(b);
    };
    const line = element.querySelector('.react-flow__edge-path, [data-testid="overview-edges"] path');
    if (!line) throw new Error('no line on the canvas');
    let behind: Element | null = element.querySelector('.react-flow');
    let background = 'rgba(0, 0, 0, 0)';
    for (; behind; behind = behind.parentElement) {
      background = getComputedStyle(behind).backgroundColor;
      if ((rgb(background)[3] ?? 1) > 0) break;
    }
    const [lighter, darker] = [luminance(rgb(getComputedStyle(line).stroke)), luminance(rgb(background))].sort((a, b) => b - a);
    return (lighter! + 0.05) / (darker! + 0.05);
  });
}

/** The items of the editor's list of problems, errors and warnings. */
const issueItems = (page: Page): Locator => page.locator('[data-testid^="issue-"]');

/**
 * Opens the editor's list of problems and waits until it shows, so that what a test then counts in
 * it (even none of a kind) is what the person sees, not a list still on its way.
 */
export async function openIssues(page: Page): Promise<void> {
  await page.getByTestId('editor-issues').click();
  await issueItems(page).first().waitFor({ state: 'visible' });
}

/** Closes the list of problems with Escape, as a keyboard user does, and waits until it has gone. */
export async function closeIssuesWithEscape(page: Page): Promise<void> {
  await page.keyboard.press('Escape');
  await issueItems(page).first().waitFor({ state: 'hidden' });
}

import type { Locator, Page } from 'playwright-core';

/** The plan editor's canvas as the e2e tests find it: a block by its id or its type, the lines drawn. */
export const nodeOf = (page: Page, id: string): Locator => page.locator(`[data-testid="plan-node"][data-node-id="${id}"]`);
export const nodesOfType = (page: Page, type: string): Locator => page.locator(`[data-testid="plan-node"][data-node-type="${type}"]`);
export const edgeCount = (page: Page) => page.locator('.react-flow__edge').count();

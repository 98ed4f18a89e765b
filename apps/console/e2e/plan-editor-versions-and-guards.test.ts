import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, test } from 'vitest';
import { createTenantUser, type TenantMember } from '../../server/test/harness.ts';
import { accessibilityViolations, type ConsoleHarness, createPlan, openPlanEditor, settledView, untilStill } from './harness.ts';
import { edgeCount, nodeOf, nodesOfType } from './canvas-locators.ts';
import { type Body, draftOf, edge, editorTenant } from './editor-tenant.ts';
import { screenshotStates } from './screenshots.ts';

/**
 * The plan editor (/visual-plan/<id>), its second half: versions, finding blocks, the shortcuts,
 * the canvas zoomed out, conflicts and guards, and a guest's read-only view and its accessibility.
 * The canvas, its history and saving: plan-editor.test.ts.
 */
const editor = editorTenant('editortenant');
let guest: TenantMember;

const node = (id: string, type: string, x: number, data: Body = {}) => ({ id, type, position: { x, y: 0 }, data });

const call = (options: Parameters<ConsoleHarness['server']['call']>[0]) => editor.harness.server.call({ ...options, token: editor.member.token });

const planWith = (name: string, content?: Body) => createPlan(editor.harness.server, editor.member.token, name, content);

beforeAll(async () => {
  guest = await createTenantUser(editor.harness.server, editor.admin, editor.member.tenantId, 'editor-guest', 'guest');
});

const openEditor = (planId: number, who: { username: string; password: string } = editor.member, options: { locale?: string; colorScheme?: 'light' | 'dark' } = {}): Promise<Page> =>
  openPlanEditor(editor.harness, planId, who, options);

/** The canvas's zoom, from the transform React Flow puts on its viewport. */
const viewZoom = (page: Page) =>
  page.evaluate(() => Number(/scale\(([\d.]+)\)/.exec(document.querySelector<HTMLElement>('.react-flow__viewport')?.style.transform ?? '')?.[1] ?? Number.NaN));

/** An empty spot of the canvas (the pane, not a block), where the wheel zooms. */
async function panePoint(page: Page): Promise<{ x: number; y: number }> {
  const box = (await page.getByTestId('plan-canvas').boundingBox())!;
  for (const [x, y] of [[0.5, 0.8], [0.2, 0.8], [0.8, 0.8], [0.5, 0.2], [0.2, 0.2]] as const) {
    const spot = { x: box.x + box.width * x, y: box.y + box.height * y };
    if (await page.evaluate(({ x, y }) => document.elementFromPoint(x, y)?.classList.contains('react-flow__pane') ?? false, spot)) return spot;
  }
  throw new Error('no empty spot of the canvas');
}

describe('versions, finding and shortcuts', () => {
  test('a published version is shown read-only and restored as the draft', async () => {
    const plan = await planWith('Versioned', { nodes: [node('start', 'start', 0), node('first', 'hangup', 250)], edges: [edge('start', 'next', 'first')] });
    const published = await call({ method: 'POST', url: `/visual-plans/${plan.id}/publish`, payload: { base_version: 2 } });
    expect(published.statusCode, published.body).toBe(200);
    const changed = await call({
      method: 'PUT',
      url: `/visual-plans/${plan.id}/document`,
      payload: { base_version: 2, nodes: [node('start', 'start', 0), node('second', 'play_message', 250, { voice_text: 'Later' })], edges: [edge('start', 'next', 'second')] },
    });
    expect(changed.statusCode, changed.body).toBe(200);

    const page = await openEditor(plan.id);
    await nodeOf(page, 'second').waitFor();
    await page.getByTestId('editor-more').click();
    await page.getByTestId('editor-versions').click();
    await expect.poll(() => page.getByTestId('version-row').count()).toBe(1);
    await page.getByTestId('version-view').click();
    const viewer = page.getByRole('dialog', { name: 'Version 2 (read only)' });
    await viewer.waitFor();
    await expect.poll(() => viewer.locator('[data-testid="plan-node"][data-node-id="first"]').count()).toBe(1);
    expect(await viewer.locator('[data-testid="plan-node"][data-node-id="second"]').count()).toBe(0);
    await viewer.locator('.mantine-Modal-close').click();
    await viewer.waitFor({ state: 'detached' });

    await page.getByTestId('version-restore').click();
    await page.getByTestId('confirm-restore').click();
    await nodeOf(page, 'first').waitFor();
    expect(await nodeOf(page, 'second').count()).toBe(0);
    const draft = await draftOf(editor, plan.id);
    expect(draft.version).toBe(4);
    expect(draft.nodes.map((saved) => saved.id).sort()).toEqual(['first', 'start']);
    expect(draft.published_version).toBe(2);
  });

  test('find a block by its text; the shortcuts are listed; an edge dragged to empty canvas is removed', async () => {
    const plan = await planWith('Findable', {
      nodes: [node('start', 'start', 0), node('hello', 'play_message', 250, { voice_text: 'Welcome to the needle shop' }), node('end', 'hangup', 500)],
      edges: [edge('start', 'next', 'hello'), edge('hello', 'next', 'end')],
    });
    const page = await openEditor(plan.id);
    await page.getByTestId('editor-find').click();
    await page.getByTestId('find-input').fill('needle');
    await expect.poll(() => page.getByTestId('find-result').count()).toBe(1);
    await page.getByTestId('find-result').click();
    await expect.poll(() => page.getByTestId('block-panel').getAttribute('data-node-id')).toBe('hello');

    await page.getByTestId('editor-more').click();
    await page.getByTestId('editor-shortcuts').click();
    const shortcuts = page.getByRole('dialog', { name: 'Keyboard shortcuts' });
    await shortcuts.waitFor();
    expect(await shortcuts.textContent()).toContain('Undo');
    await page.keyboard.press('Escape');

    // Reconnect: the end of the edge into "end" is dragged away and dropped on the empty canvas.
    await page.getByTestId('editor-fit').click();
    await untilStill(nodeOf(page, 'end'));
    const edgeEnd = page.getByTestId('rf__edge-hello-next').locator('.react-flow__edgeupdater-target');
    const handle = (await edgeEnd.boundingBox())!;
    const canvas = (await page.getByTestId('plan-canvas').boundingBox())!;
    await page.mouse.move(handle.x + handle.width / 2, handle.y + handle.height / 2);
    await page.mouse.down();
    await page.mouse.move(canvas.x + canvas.width / 2, canvas.y + canvas.height - 30, { steps: 8 });
    await page.mouse.up();
    await expect.poll(() => edgeCount(page)).toBe(1);
  });

  test('zoomed out, blocks are drawn plainly and their edges as lines of the overview, the selected one in full with its handles; a plan too wide to read opens readable on its start, and fitted is drawn in outlines', async () => {
    const plan = await planWith('Level of detail', {
      nodes: [node('start', 'start', 0), node('hello', 'play_message', 250, { voice_text: 'Hello there' }), node('bye', 'play_message', 500, { voice_text: 'Goodbye now' })],
      edges: [edge('start', 'next', 'hello'), edge('hello', 'next', 'bye')],
    });
    const page = await openEditor(plan.id);
    const summary = (id: string) => nodeOf(page, id).getByTestId('node-summary');
    // A small plan opens at 100 %: every block in full.
    await expect.poll(() => summary('hello').textContent()).toBe('Hello there');
    expect(await nodeOf(page, 'hello').locator('.react-flow__handle-right').count()).toBe(1);

    const wheel = async (deltaY: number, steps: number) => {
      const spot = await panePoint(page);
      await page.mouse.move(spot.x, spot.y);
      for (let step = 0; step < steps; step++) {
        await page.mouse.wheel(0, deltaY);
        await page.waitForTimeout(30);
      }
    };
    // Four steps out: between 45 % and 20 %, where names are still read.
    await wheel(200, 4);
    await expect.poll(() => viewZoom(page)).toBeLessThan(0.45);
    expect(await viewZoom(page)).toBeGreaterThanOrEqual(0.2);
    await expect.poll(() => nodeOf(page, 'hello').getAttribute('data-detail')).toBe('plain');
    expect(await summary('hello').count()).toBe(0);
    expect(await summary('bye').count()).toBe(0);
    // The block's name and colour stay; its handles go, and the edges are drawn as lines of the
    // overview's paths that join the blocks: each leaves its block's right side, enters the next's left.
    expect(await nodeOf(page, 'hello').textContent()).toBe('Play message');
    expect(await nodeOf(page, 'hello').getByTestId('exit-next').count()).toBe(0);
    expect(await edgeCount(page)).toBe(0);
    const overview = page.getByTestId('overview-edges');
    expect(await overview.getAttribute('data-edge-count')).toBe('2');
    const ends = async () => {
      const d = await overview.locator('path').evaluateAll((paths) => paths.map((path) => path.getAttribute('d')).join(''));
      return [...d.matchAll(/M([\d.-]+),([\d.-]+)C[^M]*?([\d.-]+),([\d.-]+)(?=M|$)/g)].map((match) => match.slice(1).map(Number));
    };
    const [startToHello, helloToBye] = await ends();
    const boxOf = async (id: string) => (await nodeOf(page, id).boundingBox())!;
    const zoom = await viewZoom(page);
    const [start, hello, bye] = [await boxOf('start'), await boxOf('hello'), await boxOf('bye')];
    // In the plan's coordinates the lines meet the blocks where the blocks are drawn (their boxes on screen, over the zoom).
    expect(Math.abs((helloToBye![2]! - startToHello![2]!) * zoom - (bye.x - hello.x))).toBeLessThan(2);
    expect(Math.abs((helloToBye![0]! - startToHello![0]!) * zoom - (hello.x + hello.width - (start.x + start.width)))).toBeLessThan(2);
    // Drawn plainly: square corners, no shadow, the lines under the blocks. (Narrower, the editor turns read-only and is shot elsewhere.)
    await screenshotStates(page, 'editor-zoomed-out', { group: 'plan-editor-versions-and-guards', widths: [1280] });

    // The selected block, whose form is open, is drawn in full, with its handles.
    await nodeOf(page, 'hello').click();
    await expect.poll(() => summary('hello').textContent()).toBe('Hello there');
    expect(await nodeOf(page, 'hello').getByTestId('exit-next').count()).toBe(1);
    expect(await nodeOf(page, 'bye').getAttribute('data-detail')).toBe('plain');
    expect(await overview.getAttribute('data-edge-count')).toBe('2');
    await page.getByTestId('block-panel').getByTestId('field-voice_text').fill('Hello again');
    await expect.poll(() => summary('hello').textContent()).toBe('Hello again');
    // Undone, the block shows its text as it was: what the canvas draws follows the history.
    await page.getByTestId('editor-undo').click();
    await expect.poll(() => summary('hello').textContent()).toBe('Hello there');
    await page.getByTestId('editor-redo').click();
    await expect.poll(() => summary('hello').textContent()).toBe('Hello again');

    await wheel(-200, 6);
    await expect.poll(() => viewZoom(page)).toBeGreaterThanOrEqual(0.45);
    // Zoomed in about the pointer, the last block may be out of view (not drawn): the fit button brings the plan back.
    await page.getByTestId('editor-fit').click();
    await expect.poll(() => summary('bye').textContent()).toBe('Goodbye now');
    // Zoomed in again, React Flow draws the edges, which can be picked and reconnected.
    await expect.poll(() => edgeCount(page)).toBe(2);
    expect(await page.getByTestId('overview-edges').count()).toBe(0);

    // A plan too wide to read whole opens at the least zoom that reads (60 %), on its start block;
    // the fit button shows it all, so far out (under 20 %) that a block is its coloured outline.
    const wide = await planWith('Wide', {
      nodes: [node('start', 'start', 0), node('far', 'play_message', 6_000, { voice_text: 'Far away' })],
      edges: [edge('start', 'next', 'far')],
    });
    const second = await openEditor(wide.id);
    await expect.poll(() => viewZoom(second)).toBeCloseTo(0.6, 2);
    const box = (await second.getByTestId('plan-canvas').boundingBox())!;
    const startBox = (await nodeOf(second, 'start').boundingBox())!;
    expect(startBox.x).toBeGreaterThanOrEqual(box.x);
    expect(startBox.x + startBox.width).toBeLessThanOrEqual(box.x + box.width);
    expect(await nodeOf(second, 'far').count()).toBe(0);
    await second.getByTestId('editor-fit').click();
    await expect.poll(() => nodeOf(second, 'far').getAttribute('data-detail')).toBe('outline');
    expect(await viewZoom(second)).toBeLessThan(0.2);
    expect(await nodeOf(second, 'far').textContent()).toBe('');
    for (const id of ['start', 'far']) {
      const block = (await nodeOf(second, id).boundingBox())!;
      expect(block.x).toBeGreaterThanOrEqual(box.x);
      expect(block.x + block.width).toBeLessThanOrEqual(box.x + box.width);
    }

    // Opened again, the block out of view is never drawn, not even hidden for React Flow to measure
    // it: only what is in view is (a thousand-block plan drew a thousand to show fifty).
    const { page: third } = await editor.harness.newPage();
    await editor.harness.signIn(third, editor.member.username, editor.member.password);
    await third.addInitScript({
      content: `window.__drawn = new Set();
        new MutationObserver(() => {
          for (const block of document.querySelectorAll('[data-testid="plan-node"]')) window.__drawn.add(block.getAttribute('data-node-id'));
        }).observe(document, { subtree: true, childList: true });`,
    });
    await third.goto(`/visual-plan/${wide.id}`);
    await nodeOf(third, 'start').waitFor();
    await settledView(third);
    expect(await third.evaluate(() => [...(window as unknown as { __drawn: Set<string> }).__drawn])).toEqual(['start']);
  });
});

describe('conflicts and guards', () => {
  test('two users on one plan: the second save is out of sync, and the work is kept as a new plan', async () => {
    const plan = await planWith('Shared plan');
    const first = await openEditor(plan.id);
    const second = await openEditor(plan.id);

    await first.getByTestId('palette-hangup').click();
    await first.getByTestId('editor-save').click();
    await expect.poll(() => first.getByText(/^Plan saved \(version 2\)/).count()).toBe(1);

    await second.getByTestId('palette-play_message').click();
    await second.getByTestId('editor-save').click();
    await second.getByRole('dialog', { name: 'This plan was saved elsewhere' }).waitFor();
    // The same user in another tab is told so, not about "another user".
    await expect.poll(() => second.getByTestId('conflict-message').textContent()).toContain('You saved this plan in another tab or window');
    await second.getByTestId('conflict-name').fill('Shared plan, my way');
    await second.getByTestId('conflict-save-as').click();
    await second.waitForURL((url) => url.pathname !== `/visual-plan/${plan.id}`);

    // The first user's save stands; the second user's work is a plan of its own, opened.
    expect((await draftOf(editor, plan.id)).nodes.map((saved) => saved.type).sort()).toEqual(['hangup', 'start']);
    const copyId = Number(new URL(second.url()).pathname.split('/').pop());
    const copy = await draftOf(editor, copyId);
    expect(copy.name).toBe('Shared plan, my way');
    expect(copy.nodes.map((saved) => saved.type).sort()).toEqual(['play_message', 'start']);
    await nodesOfType(second, 'play_message').waitFor();
  });

  test('leaving with unsaved changes asks first; staying keeps the work, leaving without saving drops it', async () => {
    const plan = await planWith('Guarded');
    const page = await openEditor(plan.id);
    await page.getByTestId('palette-hangup').click();
    await page.getByRole('link', { name: 'Destinations' }).click();
    await page.getByRole('dialog', { name: 'Unsaved changes' }).waitFor();
    await page.getByTestId('leave-stay').click();
    expect(new URL(page.url()).pathname).toBe(`/visual-plan/${plan.id}`);
    expect(await nodesOfType(page, 'hangup').count()).toBe(1);

    await page.getByRole('link', { name: 'Destinations' }).click();
    await page.getByTestId('leave-save').click();
    await page.waitForURL('**/destination');
    expect((await draftOf(editor, plan.id)).nodes.map((saved) => saved.type).sort()).toEqual(['hangup', 'start']);
  });

  test('an administrator changing the tenant with a plan open is asked to save it, and the plan closes', async () => {
    const plan = await planWith('Tenant switch');
    const { page } = await editor.harness.newPage();
    await editor.harness.signIn(page);
    await page.goto(`/visual-plan/${plan.id}`);
    await nodeOf(page, 'start').waitFor();
    await page.getByTestId('palette-hangup').click();
    await page.getByTestId('tenant-picker').click();
    await page.getByRole('option', { name: 'editortenant' }).click();
    const dialog = page.getByRole('dialog', { name: 'Close the plan?' });
    await dialog.waitFor();
    expect(await dialog.textContent()).toContain('Changing the tenant closes this plan');
    await page.getByTestId('leave-save').click();
    await page.waitForURL((url) => url.pathname === '/visual-plan');
    expect((await draftOf(editor, plan.id)).nodes).toHaveLength(2);
  });
});

describe('read only', () => {
  test('a guest sees the plan and its settings but can change nothing', async () => {
    const plan = await planWith('Guest view', {
      nodes: [node('start', 'start', 0), node('end', 'hangup', 250)],
      edges: [edge('start', 'next', 'end')],
    });
    const page = await openEditor(plan.id, guest);
    expect(await page.getByTestId('editor-read-only').count()).toBe(1);
    for (const hidden of ['editor-save', 'editor-publish', 'editor-undo', 'palette-search']) expect(await page.getByTestId(hidden).count(), hidden).toBe(0);
    await nodeOf(page, 'end').click();
    await page.keyboard.press('Delete');
    expect(await nodeOf(page, 'end').count()).toBe(1);
    // A click on the canvas where no block is (its middle may hold one, the side panel having narrowed it) shows the plan's settings.
    const spot = await panePoint(page);
    await page.mouse.click(spot.x, spot.y);
    expect(await page.getByTestId('settings-chat-text').getAttribute('readonly')).not.toBeNull();
  });

  test('the editor in Portuguese and in the dark scheme passes the accessibility checks', async () => {
    const plan = await planWith('Accessible', { nodes: [node('start', 'start', 0), node('end', 'hangup', 250)], edges: [edge('start', 'next', 'end')] });
    const page = await openEditor(plan.id, editor.member, { locale: 'pt-BR', colorScheme: 'dark' });
    expect(await page.getByTestId('editor-save').textContent()).toBe('Salvar');
    expect(await page.getByTestId('editor-publish').textContent()).toBe('Publicar');
    expect(await accessibilityViolations(page)).toEqual([]);
  });
});

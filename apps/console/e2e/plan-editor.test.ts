import type { VisualPlan, VisualPlanDocument } from '@voxplan/contracts/visual-plan';
import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createTenantMember, createTenantUser, type TenantMember } from '../../server/test/harness.ts';
import { accessibilityViolations, type ConsoleHarness, createPlan, openPlanEditor, settledView, startConsole, untilStill } from './harness.ts';

/** The plan editor (/visual-plan/<id>): the canvas, its history, saving, conflicts and guards. */
let harness: ConsoleHarness;
let admin: string;
let member: TenantMember;
let guest: TenantMember;

type Body = Record<string, unknown>;
const node = (id: string, type: string, x: number, data: Body = {}) => ({ id, type, position: { x, y: 0 }, data });
const edge = (source: string, exit: string, target: string) => ({ id: `${source}-${exit}`, source, source_exit: exit, target });

const call = (options: Parameters<ConsoleHarness['server']['call']>[0]) => harness.server.call({ ...options, token: member.token });

const planWith = (name: string, content?: Body) => createPlan(harness.server, member.token, name, content);

const draftOf = async (id: number) => (await call({ method: 'GET', url: `/visual-plans/${id}/document` })).json<VisualPlanDocument>();

beforeAll(async () => {
  harness = await startConsole();
  admin = await harness.server.login();
  member = await createTenantMember(harness.server, admin, 'editortenant');
  guest = await createTenantUser(harness.server, admin, member.tenantId, 'editor-guest', 'guest');
});
afterAll(() => harness.close());

const openEditor = (planId: number, who: { username: string; password: string } = member, options: { locale?: string; colorScheme?: 'light' | 'dark' } = {}): Promise<Page> =>
  openPlanEditor(harness, planId, who, options);

const nodeOf = (page: Page, id: string): Locator => page.locator(`[data-testid="plan-node"][data-node-id="${id}"]`);
const nodesOfType = (page: Page, type: string): Locator => page.locator(`[data-testid="plan-node"][data-node-type="${type}"]`);
const edgeCount = (page: Page) => page.locator('.react-flow__edge').count();

/** Drags from an exit's handle to a block's input, as a user connects two blocks. */
async function connectExit(page: Page, from: Locator, exit: string, to: Locator): Promise<void> {
  // A drag aimed while the view still moves lands beside the handle.
  await settledView(page);
  const source = (await from.getByTestId(`exit-${exit}`).boundingBox())!;
  const target = (await to.locator('.react-flow__handle-left').boundingBox())!;
  await page.mouse.move(source.x + source.width / 2, source.y + source.height / 2);
  await page.mouse.down();
  await page.mouse.move(target.x + target.width / 2, target.y + target.height / 2, { steps: 8 });
  await page.mouse.up();
}

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

describe('canvas', () => {
  test('add a block from the palette, connect it, undo and redo, save, and find it intact after a reload', async () => {
    const plan = await planWith('Canvas basics');
    const page = await openEditor(plan.id);
    expect(await page.getByTestId('editor-dirty').textContent()).toBe('All changes saved');

    await page.getByTestId('palette-search').fill('hang');
    expect(await page.locator('[data-testid^="palette-"]:not([data-testid="palette-search"])').count()).toBe(1);
    await page.getByTestId('palette-hangup').click();
    await expect.poll(() => nodesOfType(page, 'hangup').count()).toBe(1);
    expect(await page.getByTestId('editor-dirty').textContent()).toBe('Unsaved changes');
    const hangupId = (await nodesOfType(page, 'hangup').getAttribute('data-node-id'))!;
    // A block just added is selected: the side panel shows its settings.
    await expect.poll(() => page.getByTestId('block-panel').getAttribute('data-node-id')).toBe(hangupId);

    await connectExit(page, nodeOf(page, 'start'), 'next', nodeOf(page, hangupId));
    await expect.poll(() => edgeCount(page)).toBe(1);

    await page.getByTestId('editor-undo').click();
    await expect.poll(() => edgeCount(page)).toBe(0);
    await page.getByTestId('editor-undo').click();
    await expect.poll(() => nodesOfType(page, 'hangup').count()).toBe(0);
    // Undone back to what was saved: nothing is unsaved.
    expect(await page.getByTestId('editor-dirty').textContent()).toBe('All changes saved');
    await page.getByTestId('editor-redo').click();
    await page.getByTestId('editor-redo').click();
    await expect.poll(() => edgeCount(page)).toBe(1);
    // The keyboard does the same.
    await page.locator('.react-flow__pane').click();
    await page.keyboard.press('Control+z');
    await expect.poll(() => edgeCount(page)).toBe(0);
    await page.keyboard.press('Control+Shift+z');
    await expect.poll(() => edgeCount(page)).toBe(1);

    await page.getByTestId('editor-save').click();
    await expect.poll(() => page.getByText(/^Plan saved \(version 2\)/).count()).toBe(1);
    const stored = await draftOf(plan.id);
    expect(stored.version).toBe(2);
    expect(stored.nodes.map((saved) => saved.type).sort()).toEqual(['hangup', 'start']);
    expect(stored.edges).toEqual([expect.objectContaining({ source: 'start', source_exit: 'next', target: hangupId })]);

    await page.reload();
    await nodeOf(page, hangupId).waitFor();
    expect(await edgeCount(page)).toBe(1);
    expect(await page.getByTestId('editor-version').textContent()).toBe('Version 2');
  });

  test('build a plan from the palette with a date range, a voice menu and a destination; save, publish, reload: intact', async () => {
    const range = await call({ method: 'POST', url: '/date-ranges', payload: { name: 'Office hours', time_zone: 'America/Sao_Paulo' } });
    expect(range.statusCode, range.body).toBe(201);
    const desk = await call({ method: 'POST', url: '/destinations', payload: { name: 'Front desk', kind: 'voice', uri: 'sip:100@pbx.example.com' } });
    expect(desk.statusCode, desk.body).toBe(201);
    const plan = await planWith('Reception line');
    const page = await openEditor(plan.id);
    const panel = page.getByTestId('block-panel');
    const choose = async (testId: string, label: string) => {
      await panel.getByTestId(testId).click();
      await page.getByRole('option', { name: label, exact: true }).click();
    };
    const added = async (type: string) => {
      await page.getByTestId(`palette-${type}`).click();
      const id = (await nodesOfType(page, type).last().getAttribute('data-node-id'))!;
      await expect.poll(() => panel.getAttribute('data-node-id')).toBe(id);
      return id;
    };

    const rangeId = await added('date_range');
    await choose('field-date_range_id', 'Office hours');
    await expect.poll(() => nodeOf(page, rangeId).getByTestId('node-summary').textContent()).toContain('Office hours');

    const menuId = await added('voice_menu');
    await panel.getByTestId('field-voice_text').fill('Press 1 for the front desk');
    await panel.getByTestId('field-options.0.label').fill('Front desk');
    // The key's mask refuses what a menu cannot take as it is typed: the letter never lands.
    await panel.getByTestId('field-options.0.digits').fill('1x');
    await expect.poll(() => panel.getByTestId('field-options.0.digits').inputValue()).toBe('1');
    await expect.poll(() => nodeOf(page, menuId).getByTestId('exit-1').count()).toBe(1);

    const deskId = await added('destination');
    await choose('field-destination_id', 'Front desk');

    // Blocks added at the centre overlap: spread them before connecting.
    await page.getByTestId('editor-more').click();
    await page.getByTestId('editor-layout').click();
    await expect.poll(async () => (await nodeOf(page, deskId).boundingBox())?.x !== (await nodeOf(page, menuId).boundingBox())?.x).toBe(true);
    await page.getByTestId('editor-fit').click();
    await untilStill(nodeOf(page, deskId));
    await connectExit(page, nodeOf(page, 'start'), 'next', nodeOf(page, rangeId));
    await expect.poll(() => edgeCount(page)).toBe(1);
    await connectExit(page, nodeOf(page, rangeId), 'in_hours', nodeOf(page, menuId));
    await expect.poll(() => edgeCount(page)).toBe(2);
    await connectExit(page, nodeOf(page, menuId), '1', nodeOf(page, deskId));
    await expect.poll(() => edgeCount(page)).toBe(3);

    await page.getByTestId('editor-save').click();
    await expect.poll(() => page.getByText(/^Plan saved \(version 2\)/).count()).toBe(1);
    await page.getByTestId('editor-publish').click();
    await page.getByTestId('confirm-publish').click();
    await expect.poll(() => page.getByText('Version 2 is live: calls and chats now run it.').count()).toBe(1);

    const stored = await draftOf(plan.id);
    expect(stored.published_version).toBe(2);
    expect(stored.nodes.find((saved) => saved.id === rangeId)?.data).toMatchObject({ date_range_id: range.json<{ id: number }>().id });
    expect(stored.nodes.find((saved) => saved.id === menuId)?.data).toMatchObject({ voice_text: 'Press 1 for the front desk', options: [{ digits: '1', label: 'Front desk' }] });
    expect(stored.nodes.find((saved) => saved.id === deskId)?.data).toMatchObject({ destination_id: desk.json<{ id: number }>().id });
    expect(stored.edges.map((saved) => `${saved.source}:${saved.source_exit}>${saved.target}`).sort()).toEqual(
      [`start:next>${rangeId}`, `${rangeId}:in_hours>${menuId}`, `${menuId}:1>${deskId}`].sort(),
    );

    await page.reload();
    await nodeOf(page, menuId).waitFor();
    expect(await edgeCount(page)).toBe(3);
    await nodeOf(page, menuId).click();
    expect(await panel.getByTestId('field-voice_text').inputValue()).toBe('Press 1 for the front desk');
    expect(await page.getByTestId('editor-published').textContent()).toBe('Live: version 2');
  });

  test('the save and publish buttons, the server’s warnings on their blocks, and the list that takes the user to each', async () => {
    const plan = await planWith('Warnings', {
      nodes: [node('start', 'start', 0), node('hello', 'play_message', 250, { voice_text: 'Hello' }), node('lonely', 'hangup', 500)],
      edges: [edge('start', 'next', 'hello')],
    });
    const page = await openEditor(plan.id);
    // The stored draft's warnings: the message's exit is unconnected, the hang-up unreachable.
    await expect.poll(() => nodeOf(page, 'hello').getAttribute('data-state')).toBe('warning');
    await expect.poll(() => nodeOf(page, 'lonely').getAttribute('data-state')).toBe('warning');
    await page.getByTestId('editor-issues').click();
    await page.getByTestId('issue-warning').filter({ hasText: 'Unreachable block' }).click();
    await expect.poll(() => page.getByTestId('block-panel').getAttribute('data-node-id')).toBe('lonely');

    // The draft made through the API is at version 2; publishing makes that version live.
    await page.getByTestId('editor-publish').click();
    await page.getByTestId('confirm-publish').click();
    await expect.poll(() => page.getByText('Version 2 is live: calls and chats now run it.').count()).toBe(1);
    expect(await page.getByTestId('editor-published').textContent()).toBe('Live: version 2');
    expect((await call({ method: 'GET', url: `/visual-plans/${plan.id}` })).json<VisualPlan>().published_version).toBe(2);
  });

  test('plan settings: with the texts synced, a block\'s chat text follows its voice text as it is typed', async () => {
    const plan = await planWith('Synced', {
      nodes: [node('start', 'start', 0), node('hello', 'play_message', 250, { voice_text: 'Hi', chat_text: 'Written for chat' })],
      edges: [edge('start', 'next', 'hello')],
    });
    const page = await openEditor(plan.id);
    // With nothing selected the side panel is folded: the person opens it for the plan's settings.
    await page.getByTestId('fold-panel').click();
    await page.getByTestId('settings-session-timeout').fill('45');
    await page.getByTestId('settings-sync').click();
    await nodeOf(page, 'hello').click();
    await page.getByTestId('block-panel').getByTestId('field-voice_text').fill('Welcome');
    await page.getByTestId('editor-save').click();
    await expect.poll(() => page.getByText(/^Plan saved \(version 3\)/).count()).toBe(1);
    const stored = await draftOf(plan.id);
    expect(stored.settings).toMatchObject({ session_timeout_min: 45, sync_with_voice_text: true });
    expect(stored.nodes.find((saved) => saved.id === 'hello')?.data).toMatchObject({ voice_text: 'Welcome', chat_text: 'Welcome' });
  });

  test('copy blocks in one plan and paste them into another, with the edge between them', async () => {
    const source = await planWith('Copy source', {
      nodes: [node('start', 'start', 0), node('hello', 'play_message', 250, { voice_text: 'Copied greeting' }), node('end', 'hangup', 500)],
      edges: [edge('start', 'next', 'hello'), edge('hello', 'next', 'end')],
    });
    const target = await planWith('Paste target');
    const { context, page } = await harness.newPage();
    await context.grantPermissions(['clipboard-read', 'clipboard-write']);
    await harness.signIn(page, member.username, member.password);
    await page.goto(`/visual-plan/${source.id}`);
    await nodeOf(page, 'hello').waitFor();
    await nodeOf(page, 'hello').click();
    await nodeOf(page, 'end').click({ modifiers: ['Shift'] });
    await page.keyboard.press('Control+c');

    await page.goto(`/visual-plan/${target.id}`);
    await nodeOf(page, 'start').waitFor();
    await page.locator('.react-flow__pane').click();
    await page.keyboard.press('Control+v');
    await expect.poll(() => nodesOfType(page, 'play_message').count()).toBe(1);
    await page.getByTestId('editor-save').click();
    await expect.poll(() => page.getByText(/^Plan saved \(version 2\)/).count()).toBe(1);
    const stored = await draftOf(target.id);
    const pasted = stored.nodes.find((saved) => saved.type === 'play_message')!;
    expect(pasted.data).toMatchObject({ voice_text: 'Copied greeting' });
    expect(pasted.id).not.toBe('hello');
    const pastedEnd = stored.nodes.find((saved) => saved.type === 'hangup')!;
    expect(stored.nodes).toHaveLength(3);
    expect(stored.edges).toEqual([expect.objectContaining({ source: pasted.id, source_exit: 'next', target: pastedEnd.id })]);
  });
});

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
    const draft = await draftOf(plan.id);
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

  test('zoomed out, blocks are drawn plainly and their edges as one overview, the selected one in full with its handles; a plan too wide to read opens readable on its start, and fitted is drawn in outlines', async () => {
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
    // The block's name and colour stay; its handles go, and the edges are drawn as lines of one
    // overview path that join the blocks: each leaves its block's right side, enters the next's left.
    expect(await nodeOf(page, 'hello').textContent()).toBe('Play message');
    expect(await nodeOf(page, 'hello').getByTestId('exit-next').count()).toBe(0);
    expect(await edgeCount(page)).toBe(0);
    const overview = page.getByTestId('overview-edges');
    expect(await overview.getAttribute('data-edge-count')).toBe('2');
    const ends = async () => {
      const d = (await overview.locator('path').first().getAttribute('d')) ?? '';
      return [...d.matchAll(/M([\d.-]+),([\d.-]+)C[^M]*?([\d.-]+),([\d.-]+)(?=M|$)/g)].map((match) => match.slice(1).map(Number));
    };
    const [startToHello, helloToBye] = await ends();
    const boxOf = async (id: string) => (await nodeOf(page, id).boundingBox())!;
    const zoom = await viewZoom(page);
    const [start, hello, bye] = [await boxOf('start'), await boxOf('hello'), await boxOf('bye')];
    // In the plan's coordinates the lines meet the blocks where the blocks are drawn (their boxes on screen, over the zoom).
    expect(Math.abs((helloToBye![2]! - startToHello![2]!) * zoom - (bye.x - hello.x))).toBeLessThan(2);
    expect(Math.abs((helloToBye![0]! - startToHello![0]!) * zoom - (hello.x + hello.width - (start.x + start.width)))).toBeLessThan(2);

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
    const { page: third } = await harness.newPage();
    await harness.signIn(third, member.username, member.password);
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
    expect((await draftOf(plan.id)).nodes.map((saved) => saved.type).sort()).toEqual(['hangup', 'start']);
    const copyId = Number(new URL(second.url()).pathname.split('/').pop());
    const copy = await draftOf(copyId);
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
    expect((await draftOf(plan.id)).nodes.map((saved) => saved.type).sort()).toEqual(['hangup', 'start']);
  });

  test('an administrator changing the tenant with a plan open is asked to save it, and the plan closes', async () => {
    const plan = await planWith('Tenant switch');
    const { page } = await harness.newPage();
    await harness.signIn(page);
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
    expect((await draftOf(plan.id)).nodes).toHaveLength(2);
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
    const page = await openEditor(plan.id, member, { locale: 'pt-BR', colorScheme: 'dark' });
    expect(await page.getByTestId('editor-save').textContent()).toBe('Salvar');
    expect(await page.getByTestId('editor-publish').textContent()).toBe('Publicar');
    expect(await accessibilityViolations(page)).toEqual([]);
  });
});

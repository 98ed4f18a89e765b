import type { VisualPlan } from '@voxplan/contracts/visual-plan';
import type { Locator, Page } from 'playwright-core';
import { describe, expect, test } from 'vitest';
import { type ConsoleHarness, createPlan, openPlanEditor, settledView, untilStill } from './harness.ts';
import { edgeCount, nodeOf, nodesOfType } from './canvas-locators.ts';
import { type Body, draftOf, edge, editorTenant } from './editor-tenant.ts';

/**
 * The plan editor (/visual-plan/<id>): the canvas, its history, saving and publishing, copy and
 * paste. Versions, finding, zooming out, conflicts, guards and a guest: plan-editor-versions-and-guards.test.ts.
 */
const editor = editorTenant('editortenant');

const node = (id: string, type: string, x: number, data: Body = {}) => ({ id, type, position: { x, y: 0 }, data });

const call = (options: Parameters<ConsoleHarness['server']['call']>[0]) => editor.harness.server.call({ ...options, token: editor.member.token });

const planWith = (name: string, content?: Body) => createPlan(editor.harness.server, editor.member.token, name, content);

const openEditor = (planId: number, who: { username: string; password: string } = editor.member, options: { locale?: string; colorScheme?: 'light' | 'dark' } = {}): Promise<Page> =>
  openPlanEditor(editor.harness, planId, who, options);

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
    const stored = await draftOf(editor, plan.id);
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

    const stored = await draftOf(editor, plan.id);
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
    const stored = await draftOf(editor, plan.id);
    expect(stored.settings).toMatchObject({ session_timeout_min: 45, sync_with_voice_text: true });
    expect(stored.nodes.find((saved) => saved.id === 'hello')?.data).toMatchObject({ voice_text: 'Welcome', chat_text: 'Welcome' });
  });

  test('copy blocks in one plan and paste them into another, with the edge between them', async () => {
    const source = await planWith('Copy source', {
      nodes: [node('start', 'start', 0), node('hello', 'play_message', 250, { voice_text: 'Copied greeting' }), node('end', 'hangup', 500)],
      edges: [edge('start', 'next', 'hello'), edge('hello', 'next', 'end')],
    });
    const target = await planWith('Paste target');
    const { context, page } = await editor.harness.newPage();
    await context.grantPermissions(['clipboard-read', 'clipboard-write']);
    await editor.harness.signIn(page, editor.member.username, editor.member.password);
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
    const stored = await draftOf(editor, target.id);
    const pasted = stored.nodes.find((saved) => saved.type === 'play_message')!;
    expect(pasted.data).toMatchObject({ voice_text: 'Copied greeting' });
    expect(pasted.id).not.toBe('hello');
    const pastedEnd = stored.nodes.find((saved) => saved.type === 'hangup')!;
    expect(stored.nodes).toHaveLength(3);
    expect(stored.edges).toEqual([expect.objectContaining({ source: pasted.id, source_exit: 'next', target: pastedEnd.id })]);
  });
});

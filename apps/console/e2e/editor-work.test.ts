import type { Page } from 'playwright-core';
import { describe, expect, test } from 'vitest';
import { q } from '../../server/test/harness.ts';
import { createPlan, openPlanEditor, untilStill } from './harness.ts';
import { edgeCount, nodeOf, nodesOfType } from './canvas-locators.ts';
import { type Body, draftOf, edge, editorTenant } from './editor-tenant.ts';

/** Working in the plan editor (issue 31): wiring lines, the issues as they are counted, saving from anywhere. */
const editor = editorTenant('worktenant');

const node = (id: string, type: string, x: number, y = 0, data: Body = {}) => ({ id, type, position: { x, y }, data });

const openEditor = (planId: number): Promise<Page> => openPlanEditor(editor.harness, planId, editor.member);

const links = (plan: { edges: readonly { source: string; source_exit: string; target: string }[] }) => plan.edges.map((saved) => `${saved.source}:${saved.source_exit}>${saved.target}`).sort();

/** A point on a line, `share` of the way from its start, on the screen. */
async function pointOnLine(page: Page, edgeId: string, share = 1 / 3): Promise<{ x: number; y: number }> {
  return page.evaluate(({ id, share }) => {
    const path = document.querySelector<SVGPathElement>(`[data-testid="rf__edge-${id}"] path.react-flow__edge-path`)!;
    const at = path.getPointAtLength(path.getTotalLength() * share);
    const matrix = path.getScreenCTM()!;
    return { x: at.x * matrix.a + at.y * matrix.c + matrix.e, y: at.x * matrix.b + at.y * matrix.d + matrix.f };
  }, { id: edgeId, share });
}
describe('wiring', () => {
  test('the "+" of an unconnected exit offers the block list and adds the chosen block after it, connected', async () => {
    const plan = await createPlan(editor.harness.server, editor.member.token, 'Plus wiring', { nodes: [node('start', 'start', 0)], edges: [] });
    const page = await openEditor(plan.id);
    await nodeOf(page, 'start').getByTestId('exit-add-next').click();
    const picker = page.getByTestId('block-picker');
    await picker.waitFor();
    await picker.getByTestId('picker-search').fill('hang');
    await picker.getByTestId('picker-hangup').click();
    await expect.poll(() => nodesOfType(page, 'hangup').count()).toBe(1);
    expect(await picker.count()).toBe(0);
    const hangupId = (await nodesOfType(page, 'hangup').getAttribute('data-node-id'))!;
    await expect.poll(() => edgeCount(page)).toBe(1);
    // To the right of the block it follows, not at the view's centre over it; polled, as the view glides to keep the plan in reach (two boxes read mid-glide disagree).
    const rightOfStart = async () => {
      const start = (await nodeOf(page, 'start').boundingBox())!;
      const added = (await nodeOf(page, hangupId).boundingBox())!;
      return added.x > start.x + start.width;
    };
    await expect.poll(rightOfStart).toBe(true);
    // The exit is taken: its "+" is gone.
    expect(await nodeOf(page, 'start').getByTestId('exit-add-next').count()).toBe(0);
    // One step undoes both the block and its line.
    await page.getByTestId('editor-undo').click();
    await expect.poll(() => nodesOfType(page, 'hangup').count()).toBe(0);
    expect(await edgeCount(page)).toBe(0);
    await page.getByTestId('editor-redo').click();
    await page.getByTestId('editor-save').click();
    await expect.poll(async () => links(await draftOf(editor, plan.id))).toEqual([`start:next>${hangupId}`]);
  });

  test('a line dropped on empty canvas offers the block list there; Enter adds the first match, connected', async () => {
    const plan = await createPlan(editor.harness.server, editor.member.token, 'Drop wiring', { nodes: [node('start', 'start', 0)], edges: [] });
    const page = await openEditor(plan.id);
    const before = (await nodeOf(page, 'start').boundingBox())!;
    const handle = (await nodeOf(page, 'start').getByTestId('exit-next').boundingBox())!;
    await page.mouse.move(handle.x + handle.width / 2, handle.y + handle.height / 2);
    await page.mouse.down();
    // Above the start block's exit, on the empty canvas, where a new block is in view whole (else the view pans to it).
    const canvas = (await page.getByTestId('plan-canvas').boundingBox())!;
    const drop = { x: handle.x + 30, y: Math.max(canvas.y + 40, handle.y - 150) };
    await page.mouse.move(drop.x, drop.y, { steps: 10 });
    await page.mouse.up();
    const picker = page.getByTestId('block-picker');
    await picker.waitFor();
    await page.keyboard.type('hang');
    await page.keyboard.press('Enter');
    await expect.poll(() => nodesOfType(page, 'hangup').count()).toBe(1);
    await expect.poll(() => edgeCount(page)).toBe(1);
    // The block's entry is where the line was dropped, measured from the start block in one frame: the view may be panning to it.
    const offset = await page.evaluate(() => {
      const left = (selector: string) => document.querySelector(selector)!.getBoundingClientRect().left;
      return left('[data-testid="plan-node"][data-node-type="hangup"]') - left('[data-testid="plan-node"][data-node-id="start"]');
    });
    // Within a handle's width (16 px): placed at the view's centre instead, it would be hundreds off.
    expect(Math.abs(offset - (drop.x - before.x))).toBeLessThan(16);

    // Escape closes the list without adding anything.
    const hangupId = (await nodesOfType(page, 'hangup').getAttribute('data-node-id'))!;
    expect(hangupId).toBeTruthy();
    await untilStill(nodeOf(page, 'start'));
    const again = (await nodeOf(page, 'start').getByTestId('exit-next').boundingBox())!;
    await page.mouse.move(again.x + again.width / 2, again.y + again.height / 2);
    await page.mouse.down();
    await page.mouse.move(Math.min(again.x + 150, canvas.x + canvas.width - 80), Math.max(canvas.y + 40, again.y - 100), { steps: 10 });
    await page.mouse.up();
    await picker.waitFor();
    await page.keyboard.press('Escape');
    await expect.poll(() => picker.count()).toBe(0);
    expect(await page.locator('[data-testid="plan-node"]').count()).toBe(2);
  });

  test('of several lines meeting at one block, the one clicked is marked, labelled with its exit, and its button removes it alone', async () => {
    const plan = await createPlan(editor.harness.server, editor.member.token, 'Busy block', {
      nodes: [
        node('start', 'start', 0, 150),
        node('menu', 'voice_menu', 260, 150, { voice_text: 'Choose', options: [{ digits: '1', label: 'Sales' }, { digits: '2', label: 'Support' }] }),
        node('bye', 'hangup', 620, 150),
      ],
      edges: [edge('start', 'next', 'menu'), edge('menu', '1', 'bye'), edge('menu', '2', 'bye'), edge('menu', 'timeout', 'bye')],
    });
    const page = await openEditor(plan.id);
    await expect.poll(() => edgeCount(page)).toBe(4);
    const line = page.getByTestId('rf__edge-menu-2');
    const point = await pointOnLine(page, 'menu-2');
    // A hovered line is marked as such, before any click.
    await page.mouse.move(point.x, point.y);
    await expect.poll(() => line.locator('[data-line-state]').getAttribute('data-line-state')).toBe('hover');
    // Where the lines lie close together, the click picks the line under the pointer, not the one drawn last.
    await page.mouse.click(point.x, point.y);
    await expect.poll(() => line.locator('[data-line-state]').getAttribute('data-line-state')).toBe('selected');
    expect(await page.locator('[data-line-state="selected"]').count()).toBe(1);
    // The selected line names the exit it leaves from (the menu's option, as the block shows it).
    await expect.poll(() => page.getByTestId('line-exit').textContent()).toContain('Support');
    await page.getByTestId('line-remove').click();
    await expect.poll(() => edgeCount(page)).toBe(3);
    expect(await page.getByTestId('rf__edge-menu-2').count()).toBe(0);
    expect(await page.getByTestId('rf__edge-menu-1').count()).toBe(1);
    // The exit now offers its "+".
    expect(await nodeOf(page, 'menu').getByTestId('exit-add-2').count()).toBe(1);

    // A line alone is hit 12 units off its stroke at the canvas's zoom (React Flow's own reach is 10).
    const lone = await pointOnLine(page, 'start-next', 0.5);
    const zoom = await page.evaluate(() => Number(/scale\(([\d.]+)\)/.exec(document.querySelector<HTMLElement>('.react-flow__viewport')!.style.transform)![1]));
    await page.mouse.click(lone.x, lone.y + 12 * zoom);
    await expect.poll(() => page.getByTestId('rf__edge-start-next').locator('[data-line-state]').getAttribute('data-line-state')).toBe('selected');
  });
});

describe('saving and issues', () => {
  test('Ctrl+S saves from inside a block\'s field; the issues are counted in the language\'s plural', async () => {
    const plan = await createPlan(editor.harness.server, editor.member.token, 'Keyboard save', {
      nodes: [node('start', 'start', 0), node('hello', 'play_message', 260, 0, { voice_text: 'Hello' })],
      edges: [edge('start', 'next', 'hello')],
    });
    const page = await openEditor(plan.id);
    // One issue: the message's exit leads nowhere.
    await expect.poll(() => page.getByTestId('editor-issues').textContent()).toBe('1 issue');
    await nodeOf(page, 'hello').click();
    const field = page.getByTestId('block-panel').getByTestId('field-voice_text');
    await field.fill('Hello and welcome');
    await field.press('Control+s');
    await expect.poll(async () => (await draftOf(editor, plan.id)).version).toBe(plan.version + 1);
    expect((await draftOf(editor, plan.id)).nodes.find((saved) => saved.id === 'hello')?.data).toMatchObject({ voice_text: 'Hello and welcome' });
    // The focus stayed in the field: the browser's "save page" did not open.
    expect(await field.evaluate((element) => element === document.activeElement)).toBe(true);
  });

  test('the issues follow the edits before any save, name blocks and exits as the user sees them, and show no internal path', async () => {
    const plan = await createPlan(editor.harness.server, editor.member.token, 'Live issues', {
      nodes: [node('start', 'start', 0), node('hello', 'play_message', 260, 0, { voice_text: 'Welcome to the shop' }), node('bye', 'hangup', 560, 0)],
      edges: [edge('start', 'next', 'hello')],
    });
    const page = await openEditor(plan.id);
    // Saved: the message's exit leads nowhere, and the hang-up is cut off.
    await expect.poll(() => page.getByTestId('editor-issues').textContent()).toBe('2 issues');
    await page.getByTestId('editor-issues').click();
    const listed = async () => (await page.locator('[data-testid^="issue-"]').allTextContents()).join('\n');
    await expect.poll(listed).toContain('Play message · Welcome to the shop, exit “Next”');
    expect(await listed()).not.toContain('exits.');
    expect(await listed()).not.toContain("'hello'");
    await page.keyboard.press('Escape');
    // Wired from its "+", the message's exit is no longer an issue, nor is the hang-up: before any save.
    await nodeOf(page, 'hello').getByTestId('exit-add-next').click();
    await page.getByTestId('picker-search').fill('hang');
    await page.getByTestId('picker-hangup').click();
    await expect.poll(() => page.getByTestId('editor-issues').count()).toBe(1);
    await expect.poll(() => page.getByTestId('editor-issues').textContent()).toBe('1 issue');
    expect(await page.getByTestId('editor-dirty').textContent()).toBe('Unsaved changes');
  });

  test('a block added with a required setting empty is an issue at once, named by the field\'s label in either language, and goes when the setting is chosen', async () => {
    const desk = await editor.harness.server.call({ method: 'POST', url: '/destinations', token: editor.member.token, payload: { name: 'Front desk', kind: 'voice', uri: 'sip:100@pbx.example.com' } });
    expect(desk.statusCode, desk.body).toBe(201);
    const plan = await createPlan(editor.harness.server, editor.member.token, 'Live required', { nodes: [node('start', 'start', 0)], edges: [] });
    const page = await openEditor(plan.id);
    await nodeOf(page, 'start').getByTestId('exit-add-next').click();
    await page.getByTestId('picker-search').fill('destination');
    await page.getByTestId('picker-destination').click();
    // Before any save: the destination's empty picker is counted and listed by its label, not as `destination_id`.
    await page.getByTestId('editor-issues').click();
    const listed = async () => (await page.locator('[data-testid="issue-error"]').allTextContents()).join('\n');
    await expect.poll(listed).toContain('Required setting empty');
    expect(await listed()).toContain('“Destination” is empty');
    expect(await listed()).not.toContain('destination_id');
    expect(await page.getByTestId('editor-dirty').textContent()).toBe('Unsaved changes');
    await page.keyboard.press('Escape');
    const added = (await nodesOfType(page, 'destination').getAttribute('data-node-id'))!;
    // The block is marked as in error (its badge counts its exits' warnings too).
    expect(await nodeOf(page, added).getByTestId('node-error').count()).toBe(1);

    await page.getByTestId('block-panel').getByTestId('field-destination_id').click();
    await page.getByRole('option', { name: 'Front desk', exact: true }).click();
    await expect.poll(() => nodeOf(page, added).getByTestId('node-error').count()).toBe(0);
    await page.getByTestId('editor-issues').click();
    await expect.poll(() => page.locator('[data-testid="issue-warning"]').count()).toBe(3);
    expect(await page.locator('[data-testid="issue-error"]').count()).toBe(0);
    await page.keyboard.press('Escape');

    // In Portuguese, with its own plural.
    const { page: portuguese } = await editor.harness.newPage({ locale: 'pt-BR' });
    await editor.harness.signIn(portuguese, editor.member.username, editor.member.password);
    const other = await createPlan(editor.harness.server, editor.member.token, 'Live required pt', { nodes: [node('start', 'start', 0)], edges: [] });
    await portuguese.goto(`/visual-plan/${other.id}`);
    await nodeOf(portuguese, 'start').getByTestId('exit-add-next').click();
    await portuguese.getByTestId('picker-search').fill('destino');
    await portuguese.getByTestId('picker-destination').click();
    // The empty destination and its three exits that lead nowhere.
    await expect.poll(() => portuguese.getByTestId('editor-issues').textContent()).toBe('4 problemas');
    await portuguese.getByTestId('editor-issues').click();
    await expect.poll(async () => (await portuguese.locator('[data-testid="issue-error"]').allTextContents()).join('\n')).toContain('“Destino” está vazio');
  });

  test('Find a block finds a block by the name of what it points to, and shows it by name, not as JSON', async () => {
    const sales = await editor.harness.server.call({ method: 'POST', url: '/destinations', token: editor.member.token, payload: { name: 'Sales team', kind: 'voice', uri: 'sip:200@pbx.example.com' } });
    expect(sales.statusCode, sales.body).toBe(201);
    const plan = await createPlan(editor.harness.server, editor.member.token, 'Findable by name', {
      nodes: [node('start', 'start', 0), node('to-sales', 'destination', 260, 0, { destination_id: sales.json<{ id: number }>().id }), node('bye', 'hangup', 560, 0)],
      edges: [edge('start', 'next', 'to-sales')],
    });
    const page = await openEditor(plan.id);
    await expect.poll(() => nodeOf(page, 'to-sales').getByTestId('node-summary').textContent()).toContain('Sales team');
    await page.getByTestId('editor-find').click();
    await page.getByTestId('find-input').fill('sales');
    await expect.poll(() => page.getByTestId('find-result').count()).toBe(1);
    const result = (await page.getByTestId('find-result').textContent())!;
    expect(result).toContain('Destination · Sales team');
    expect(result).not.toContain('{');
    expect(result).not.toContain('destination_id');
  });
});

describe('names', () => {
  test('a block named in its panel reads by that name on the canvas, in the issues, in Find, in the test panel\'s path and in the report\'s replay', async () => {
    const plan = await createPlan(editor.harness.server, editor.member.token, 'Named blocks', {
      nodes: [node('start', 'start', 0), node('hello', 'play_message', 260, 0, { voice_text: 'Welcome to the shop', chat_text: 'Welcome to the shop' })],
      edges: [edge('start', 'next', 'hello')],
    });
    const page = await openEditor(plan.id);
    const name = nodeOf(page, 'hello').getByTestId('node-name');
    expect(await name.textContent()).toBe('Play message');
    await nodeOf(page, 'hello').click();
    await page.getByTestId('block-panel').getByTestId('block-name').fill('  Welcome');
    // On the canvas at once, in place of the block type's name.
    await expect.poll(() => name.textContent()).toBe('Welcome');

    await page.getByTestId('editor-issues').click();
    const listed = async () => (await page.locator('[data-testid^="issue-"]').allTextContents()).join('\n');
    await expect.poll(listed).toContain('Welcome, exit “Next”');
    expect(await listed()).not.toContain('Play message');
    await page.keyboard.press('Escape');

    await page.getByTestId('editor-find').click();
    await page.getByTestId('find-input').fill('welcome');
    await expect.poll(() => page.getByTestId('find-result').count()).toBe(1);
    expect(await page.getByTestId('find-result').textContent()).toMatch(/^Welcome/);
    await page.keyboard.press('Escape');

    await page.keyboard.press('Control+s');
    // Saved trimmed.
    await expect.poll(async () => (await draftOf(editor, plan.id)).nodes.find((saved) => saved.id === 'hello')?.label).toBe('Welcome');

    await page.getByTestId('editor-test').click();
    await page.getByTestId('test-panel').waitFor();
    await expect.poll(() => page.getByTestId('test-panel-connection').textContent()).toBe('Connected');
    await page.getByTestId('test-panel').getByText('Chat', { exact: true }).click();
    await page.getByTestId('test-panel-start').click();
    await expect.poll(() => page.getByTestId('test-panel-status').textContent()).toBe('The run has ended.');
    const steps = await page.getByTestId('test-panel-path').locator('li').allTextContents();
    expect(steps[1]).toMatch(/^Welcome/);
    expect(await page.getByTestId('test-panel-report').getByRole('row', { name: /Last block/ }).textContent()).toBe('Last blockWelcome');

    const reports = async () =>
      (await editor.harness.server.call({ method: 'GET', url: `/reports?${q('filter', { where: { plan_id: plan.id, is_test: true } })}`, token: editor.member.token })).json<{ id: number }[]>();
    await expect.poll(async () => (await reports()).length).toBe(1);
    await page.goto(`/reports/${(await reports())[0]!.id}`);
    const replayed = page.getByTestId('report-canvas').locator('[data-testid="plan-node"][data-node-id="hello"]');
    await expect.poll(() => replayed.getByTestId('node-name').textContent()).toBe('Welcome');
    await expect.poll(() => page.getByTestId('report-step').nth(1).textContent()).toContain('Welcome');
  });
});

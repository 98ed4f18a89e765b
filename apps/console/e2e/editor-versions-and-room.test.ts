import { AxeBuilder } from '@axe-core/playwright';
import type { Page } from 'playwright-core';
import { describe, expect, test } from 'vitest';
import { createTenantUser } from '../../server/test/harness.ts';
import { createPlan, openPlanEditor } from './harness.ts';
import { nodeOf } from './canvas-locators.ts';
import { type Body, draftOf, edge, editorTenant } from './editor-tenant.ts';

/**
 * Working in the plan editor (issue 31), its second half: testing as if at any hour, saved drafts,
 * conflicts, publishing, the room the canvas gets, and around the editor (not found, a phone).
 * Wiring, issues and names: editor-work.test.ts.
 */
const editor = editorTenant('worktenant');

const node = (id: string, type: string, x: number, y = 0, data: Body = {}) => ({ id, type, position: { x, y }, data });

const openEditor = (planId: number): Promise<Page> => openPlanEditor(editor.harness, planId, editor.member);

describe('testing any hour', () => {
  test('the test panel runs as if at a chosen time, or on a holiday, and a date range takes that branch; it says which time it used and changes no schedule', async () => {
    const range = await editor.harness.server.call({
      method: 'POST',
      url: '/date-ranges',
      token: editor.member.token,
      payload: { name: 'Tuesday desk', time_zone: 'America/Sao_Paulo', intervals: [{ day: 'tuesday', start: '09:00', end: '17:00' }] },
    });
    expect(range.statusCode, range.body).toBe(201);
    const say = (text: string) => ({ voice_text: text, chat_text: text });
    const plan = await createPlan(editor.harness.server, editor.member.token, 'Any hour', {
      nodes: [
        node('start', 'start', 0),
        node('hours', 'date_range', 260, 0, { date_range_id: range.json<{ id: number }>().id }),
        node('open', 'play_message', 560, -150, say('We are open')),
        node('closed', 'play_message', 560, 0, say('We are closed')),
        node('feast', 'play_message', 560, 150, say('Happy holiday')),
      ],
      edges: [edge('start', 'next', 'hours'), edge('hours', 'in_hours', 'open'), edge('hours', 'out_of_hours', 'closed'), edge('hours', 'holiday', 'feast')],
    });
    const schedules = async () => [
      (await editor.harness.server.call({ method: 'GET', url: '/date-ranges', token: editor.member.token })).body,
      (await editor.harness.server.call({ method: 'GET', url: '/holidays', token: editor.member.token })).body,
    ];
    const before = await schedules();
    // The tester's clock is São Paulo's, as the range's: 10:00 there is in hours.
    const { page } = await editor.harness.newPage({ timezoneId: 'America/Sao_Paulo' });
    await editor.harness.signIn(page, editor.member.username, editor.member.password);
    await page.goto(`/visual-plan/${plan.id}`);
    await nodeOf(page, 'hours').waitFor();
    await page.getByTestId('editor-test').click();
    const panel = page.getByTestId('test-panel');
    await expect.poll(() => page.getByTestId('test-panel-connection').textContent()).toBe('Connected');
    await panel.getByText('Chat', { exact: true }).click();
    await page.getByTestId('test-panel-as-if').click();
    const run = async (at: string, holiday = false) => {
      await page.getByTestId('test-panel-as-if-at').fill(at);
      const box = page.getByTestId('test-panel-as-if-holiday');
      if ((await box.isChecked()) !== holiday) await box.click();
      await page.getByTestId('test-panel-start').click();
      await expect.poll(() => page.getByTestId('test-panel-status').textContent()).toBe('The run has ended.');
      return { said: (await page.getByTestId('test-panel-transcript').textContent()) ?? '', used: (await page.getByTestId('test-panel-ran-as-if').textContent()) ?? '' };
    };
    // 2030-01-08 is a Tuesday.
    const open = await run('2030-01-08T10:00');
    expect(open.said).toContain('We are open');
    expect(open.used).toBe('Run as if at 1/8/2030, 10:00:00 AM.');
    const closed = await run('2030-01-08T20:00');
    expect(closed.said).toContain('We are closed');
    expect(closed.said).not.toContain('We are open');
    const feast = await run('2030-01-08T10:00', true);
    expect(feast.said).toContain('Happy holiday');
    expect(feast.used).toBe('Run as if at 1/8/2030, 10:00:00 AM, on a holiday.');
    const axe = await new AxeBuilder({ page }).include('[data-testid="test-panel"]').analyze();
    expect(axe.violations.filter((violation) => violation.impact === 'serious' || violation.impact === 'critical').map((violation) => violation.id)).toEqual([]);
    expect(await schedules()).toEqual(before);
  });
});

describe('saved drafts', () => {
  test('the versions drawer lists the saved drafts too, with who saved each; any is looked at and restored', async () => {
    const plan = await createPlan(editor.harness.server, editor.member.token, 'Drafts kept', { nodes: [node('start', 'start', 0), node('first', 'play_message', 260, 0, { voice_text: 'First' })], edges: [edge('start', 'next', 'first')] });
    const later = await editor.harness.server.call({
      method: 'PUT',
      url: `/visual-plans/${plan.id}/document`,
      token: editor.member.token,
      payload: { base_version: plan.version, nodes: [node('start', 'start', 0), node('second', 'hangup', 260, 0)], edges: [edge('start', 'next', 'second')] },
    });
    expect(later.statusCode, later.body).toBe(200);
    const page = await openEditor(plan.id);
    await nodeOf(page, 'second').waitFor();
    await page.getByTestId('editor-more').click();
    await page.getByTestId('editor-versions').click();
    // Never published: no published version, and both saves listed, newest first, the current one marked.
    const rows = page.getByTestId('draft-row');
    await expect.poll(() => rows.count()).toBe(2);
    expect(await rows.evaluateAll((list) => list.map((row) => row.getAttribute('data-version')))).toEqual([String(plan.version + 1), String(plan.version)]);
    expect(await rows.first().textContent()).toContain('current');
    expect(await rows.first().textContent()).toContain((await draftOf(editor, plan.id)).updated_by_name!);
    expect(await rows.first().getByTestId('draft-restore').count()).toBe(0);

    await rows.nth(1).getByTestId('draft-view').click();
    const viewer = page.getByRole('dialog', { name: `Draft ${plan.version} (read only)` });
    await viewer.waitFor();
    await expect.poll(() => viewer.locator('[data-testid="plan-node"][data-node-id="first"]').count()).toBe(1);
    await viewer.locator('.mantine-Modal-close').click();
    await viewer.waitFor({ state: 'detached' });

    await rows.nth(1).getByTestId('draft-restore').click();
    await page.getByTestId('confirm-restore').click();
    await nodeOf(page, 'first').waitFor();
    expect(await nodeOf(page, 'second').count()).toBe(0);
    const draft = await draftOf(editor, plan.id);
    expect(draft.version).toBe(plan.version + 2);
    expect(draft.nodes.map((saved) => saved.id).sort()).toEqual(['first', 'start']);
  });
});

describe('conflicts', () => {
  test('the conflict dialog names the user who saved first', async () => {
    const colleague = await createTenantUser(editor.harness.server, editor.admin, editor.member.tenantId, 'work-colleague', 'user');
    const plan = await createPlan(editor.harness.server, editor.member.token, 'Two editors', { nodes: [node('start', 'start', 0)], edges: [] });
    const page = await openEditor(plan.id);
    const theirs = await editor.harness.server.call({
      method: 'PUT',
      url: `/visual-plans/${plan.id}/document`,
      token: colleague.token,
      payload: { base_version: plan.version, format_version: 1, nodes: [node('start', 'start', 0), node('bye', 'hangup', 300)], edges: [] },
    });
    expect(theirs.statusCode, theirs.body).toBe(200);
    await page.getByTestId('palette-hangup').click();
    await page.getByTestId('editor-save').click();
    await page.getByRole('dialog', { name: 'This plan was saved elsewhere' }).waitFor();
    await expect.poll(() => page.getByTestId('conflict-message').textContent()).toContain('work-colleague saved this plan after you opened it');
  });
});

describe('publishing', () => {
  test('publishing asks first and names what changed since the published version', async () => {
    const plan = await createPlan(editor.harness.server, editor.member.token, 'Publish diff', {
      nodes: [node('start', 'start', 0), node('hello', 'play_message', 260, 0, { voice_text: 'Good morning' }), node('bye', 'hangup', 560, 0)],
      edges: [edge('start', 'next', 'hello'), edge('hello', 'next', 'bye')],
    });
    const published = await editor.harness.server.call({ method: 'POST', url: `/visual-plans/${plan.id}/publish`, token: editor.member.token, payload: { base_version: plan.version } });
    expect(published.statusCode, published.body).toBe(200);
    const page = await openEditor(plan.id);
    await nodeOf(page, 'hello').click();
    await page.getByTestId('block-panel').getByTestId('field-voice_text').fill('Good afternoon');
    await page.getByTestId('editor-publish').click();
    const dialog = page.getByTestId('publish-dialog');
    await expect.poll(() => dialog.getByTestId('publish-changes').textContent()).toContain('1 block changed: Play message · Good afternoon');
    // Cancelled: nothing is published.
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    expect((await draftOf(editor, plan.id)).published_version).toBe(plan.version);
    await page.getByTestId('editor-publish').click();
    await page.getByTestId('confirm-publish').click();
    await expect.poll(async () => (await draftOf(editor, plan.id)).published_version).toBe(plan.version + 1);
  });
});

describe('room', () => {
  test.each([
    { width: 1920, locale: 'en-US', colorScheme: 'light', button: 'Show the overview map' },
    { width: 1400, locale: 'pt-BR', colorScheme: 'dark', button: 'Mostrar o mapa geral' },
  ] as const)('never chosen, the minimap is hidden, however wide the canvas ($width px; $locale, $colorScheme)', async ({ width, locale, colorScheme, button }) => {
    const plan = await createPlan(editor.harness.server, editor.member.token, `Minimap ${width}`, { nodes: [node('start', 'start', 0, 0)], edges: [] });
    const { page } = await editor.harness.newPage({ locale, colorScheme });
    await page.setViewportSize({ width, height: 900 });
    await editor.harness.signIn(page, editor.member.username, editor.member.password);
    await page.goto(`/visual-plan/${plan.id}`);
    await nodeOf(page, 'start').waitFor();
    expect(await page.locator('.react-flow__minimap').count()).toBe(0);
    // Its button says what it does now.
    expect(await page.getByTestId('toggle-minimap').getAttribute('aria-label')).toBe(button);
  });

  test('a plan with blocks opens with the block list and side panel folded; opened and folded again they stay so, the minimap hides, and whole-window gives a 20-block plan room to be read at 1400 × 900', async () => {
    // A front desk's shape: five columns of four blocks, each leading to the next column.
    const nodes = [node('start', 'start', 0, 0)];
    const edges = [];
    for (let column = 1; column <= 5; column++) {
      for (let row = 0; row < 4 && nodes.length < 20; row++) {
        const id = `b${column}-${row}`;
        nodes.push(node(id, 'play_message', column * 280, row * 160, { voice_text: `Message ${column}.${row}` }));
        edges.push(edge(column === 1 ? 'start' : `b${column - 1}-${row}`, 'next', id));
      }
    }
    const plan = await createPlan(editor.harness.server, editor.member.token, 'Twenty blocks', { nodes, edges: edges.filter((link, index, all) => all.findIndex((other) => other.id === link.id) === index) });
    const { context, page } = await editor.harness.newPage();
    await page.setViewportSize({ width: 1400, height: 900 });
    await editor.harness.signIn(page, editor.member.username, editor.member.password);
    await page.goto(`/visual-plan/${plan.id}`);
    await nodeOf(page, 'start').waitFor();
    const canvasWidth = async () => (await page.getByTestId('plan-canvas').boundingBox())!.width;
    // The plan has blocks and none is selected: the canvas has the width the menu leaves.
    const roomy = await canvasWidth();
    expect(roomy).toBeGreaterThan(1050);
    expect(await page.getByTestId('palette-search').count()).toBe(0);
    expect(await page.locator('.react-flow__minimap').count()).toBe(0);
    await page.getByTestId('toggle-minimap').click();
    await expect.poll(() => page.locator('.react-flow__minimap').count()).toBe(1);

    // Both opened, the canvas narrows; folded again, it has its room back.
    await page.getByTestId('fold-blocks').click();
    await page.getByTestId('fold-panel').click();
    await expect.poll(() => page.getByTestId('palette-search').count()).toBe(1);
    await expect.poll(canvasWidth).toBeLessThan(roomy - 500);
    await page.getByTestId('fold-blocks').click();
    await page.getByTestId('fold-panel').click();
    await expect.poll(() => page.getByTestId('palette-search').count()).toBe(0);
    await expect.poll(canvasWidth).toBe(roomy);
    await page.getByTestId('toggle-minimap').click();
    await expect.poll(() => page.locator('.react-flow__minimap').count()).toBe(0);
    await page.getByTestId('toggle-whole-window').click();
    await expect.poll(canvasWidth).toBeGreaterThan(1350);
    await page.getByTestId('editor-fit').click();
    // Fitted, every block is drawn in full (its text readable), not as a plain outline.
    await expect.poll(() => page.locator('[data-testid="plan-node"][data-detail="full"]').count()).toBe(20);
    // A dialog opened from the whole window is above it, and answers clicks.
    await page.getByTestId('editor-publish').click();
    await page.getByTestId('publish-dialog').getByRole('button', { name: 'Cancel' }).click();
    await expect.poll(() => page.getByTestId('publish-dialog').count()).toBe(0);

    // Remembered: another visit opens with the panels folded, the side panel too when a block is selected, and the minimap hidden.
    const again = await context.newPage();
    await again.setViewportSize({ width: 1400, height: 900 });
    await again.goto(`/visual-plan/${plan.id}`);
    await nodeOf(again, 'start').waitFor();
    expect(await again.getByTestId('palette-search').count()).toBe(0);
    expect(await again.locator('.react-flow__minimap').count()).toBe(0);
    await nodeOf(again, 'start').click();
    await expect.poll(() => again.getByTestId('editor-shell').locator('aside').isHidden()).toBe(true);
    await again.getByTestId('fold-blocks').click();
    await expect.poll(() => again.getByTestId('palette-search').count()).toBe(1);
  });
});

describe('around the editor', () => {
  test('an unknown address shows a "not found" page where it was asked, not the dashboard', async () => {
    const { page } = await editor.harness.newPage();
    await editor.harness.signIn(page, editor.member.username, editor.member.password);
    await page.goto('/no-such-page');
    await page.getByTestId('not-found').waitFor();
    expect(await page.getByTestId('not-found').textContent()).toContain('The console has no page at /no-such-page.');
    expect(new URL(page.url()).pathname).toBe('/no-such-page');
  });

  test('on a 390 px phone the editor shows the plan read-only: it says editing needs a wider screen, a block is selected and its settings read', async () => {
    const plan = await createPlan(editor.harness.server, editor.member.token, 'On a phone', {
      nodes: [node('start', 'start', 0), node('hello', 'play_message', 260, 0, { voice_text: 'Hello from the phone' })],
      edges: [edge('start', 'next', 'hello')],
    });
    const { page } = await editor.harness.newPage();
    await page.setViewportSize({ width: 390, height: 844 });
    await editor.harness.signIn(page, editor.member.username, editor.member.password);
    await page.goto(`/visual-plan/${plan.id}`);
    await nodeOf(page, 'hello').waitFor();
    await page.getByTestId('editor-narrow').waitFor();
    for (const hidden of ['editor-save', 'editor-publish', 'palette-search']) expect(await page.getByTestId(hidden).count(), hidden).toBe(0);
    // The canvas has room, and the page does not scroll sideways.
    const canvas = (await page.getByTestId('plan-canvas').boundingBox())!;
    expect(canvas.width).toBeGreaterThan(300);
    expect(canvas.height).toBeGreaterThan(250);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await nodeOf(page, 'hello').click();
    const field = page.getByTestId('block-panel').getByTestId('field-voice_text');
    expect(await field.inputValue()).toBe('Hello from the phone');
    expect(await field.isEditable()).toBe(false);
  });
});

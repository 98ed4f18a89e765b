/**
 * The plan's canvases as a person sees them (issue 36), over fixtures/plans/opening-hours.json, an
 * 8-block plan: the editor, a published version, a report's replay and the dashboard's heat map, at
 * 1280 and 390 px. Each opens with its lines drawn, at a zoom between the least that reads (the
 * editor) and 100 %, with no control, fold button or overview map over a block; the editor leaves
 * the canvas the room, and names its warnings in the person's language.
 */
import { readFileSync } from 'node:fs';
import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createTenantMember, type TenantMember } from '../../server/test/harness.ts';
import { type FixtureDocument, insertReport, storePlan } from '../../server/test/sessions-helpers.ts';
import { type ConsoleHarness, createPlan, openPlanEditor, startConsole, untilStill } from './harness.ts';
import { closeIssuesWithEscape, lineContrast, openIssues } from './canvas-locators.ts';
import { screenshotStates } from './screenshots.ts';

const fixture = JSON.parse(readFileSync(new URL('../../../fixtures/plans/opening-hours.json', import.meta.url), 'utf8')) as FixtureDocument & {
  edges: Array<{ id: string; source: string; target: string }>;
  settings: Record<string, unknown>;
};
const CONNECTIONS = fixture.edges.length;
const group = 'canvas';

let harness: ConsoleHarness;
let member: TenantMember;
/** The plan stored with its published version 1, and a report of a call through it. */
let publishedPlanId: number;
let reportId: number;

beforeAll(async () => {
  harness = await startConsole();
  const admin = await harness.server.login();
  member = await createTenantMember(harness.server, admin, 'canvastenant');
  publishedPlanId = await storePlan(harness.server.ctx, member.tenantId, fixture, { name: 'Opening hours' });
  const now = Date.now();
  const steps: Array<[string, string, string | null]> = [
    ['start', 'start', 'next'],
    ['welcome', 'play_message', 'next'],
    ['menu', 'voice_menu', '1'],
    ['sales', 'play_message', 'next'],
    ['bye', 'hangup', null],
  ];
  const report = await insertReport(harness.server.ctx, member.tenantId, {
    sessionId: 'CA-canvas',
    startedAt: new Date(now - 60_000).toISOString(),
    session: {
      plan_id: publishedPlanId,
      plan_name: 'Opening hours',
      path: steps.map(([node_id, type, exit], index) => ({ plan_id: publishedPlanId, node_id, type, exit, at: new Date(now - 60_000 + index * 5_000).toISOString() })),
    },
  });
  reportId = report.id;
});
afterAll(() => harness.close());

type Box = { x: number; y: number; width: number; height: number };
const overlaps = (a: Box, b: Box) => a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;

/** The canvas's zoom, from the transform React Flow puts on its viewport. */
const zoomOf = (canvas: Locator) =>
  canvas.evaluate((element) => Number(/scale\(([\d.]+)\)/.exec(element.querySelector<HTMLElement>('.react-flow__viewport')?.style.transform ?? '')?.[1] ?? Number.NaN));

/** The lines drawn: React Flow's edges, or those of the zoomed-out overview's paths by their count. */
async function linesDrawn(canvas: Locator): Promise<number> {
  const overview = canvas.getByTestId('overview-edges');
  const zoomedOut = (await overview.count()) > 0 ? Number(await overview.getAttribute('data-edge-count')) : 0;
  return (await canvas.locator('.react-flow__edge').count()) + zoomedOut;
}

/** What a person sees of the canvas: its blocks in view, and the controls drawn over it. */
async function looksOf(canvas: Locator) {
  const frame = (await canvas.boundingBox())!;
  const boxesOf = async (locator: Locator) => (await Promise.all((await locator.all()).map((one) => one.boundingBox()))).filter((box): box is Box => box !== null && box.width > 0);
  const blocks = (await boxesOf(canvas.getByTestId('plan-node'))).filter((box) => overlaps(box, frame));
  const chrome = await boxesOf(canvas.locator('.react-flow__controls, .react-flow__minimap, [data-testid^="fold-"]'));
  const covered = blocks.filter((block) => chrome.some((control) => overlaps(control, block)));
  const rendered = new Set(await canvas.getByTestId('plan-node').evaluateAll((nodes) => nodes.map((node) => node.getAttribute('data-node-id'))));
  // The connections of the blocks drawn: React Flow draws only what is in view.
  const touching = fixture.edges.filter((edge) => rendered.has(edge.source) || rendered.has(edge.target)).length;
  return { frame, blocks, covered, touching, minimaps: await canvas.locator('.react-flow__minimap').count() };
}

/** Lines, zoom and controls of a canvas just opened: `minZoom` is the least it may open at. */
async function expectOpenedWell(canvas: Locator, minZoom: number, allInView: boolean): Promise<void> {
  await expect.poll(() => linesDrawn(canvas)).toBeGreaterThan(0);
  const looks = await looksOf(canvas);
  if (allInView) expect(await linesDrawn(canvas)).toBe(CONNECTIONS);
  else expect(await linesDrawn(canvas)).toBeGreaterThanOrEqual(looks.touching);
  const zoom = await zoomOf(canvas);
  expect(zoom).toBeGreaterThanOrEqual(minZoom - 0.001);
  expect(zoom).toBeLessThanOrEqual(1);
  expect(looks.blocks.length).toBeGreaterThan(0);
  expect(looks.covered, 'blocks under a control or the overview map').toEqual([]);
  for (const line of await canvas.locator('.react-flow__edge-path').all()) await expect.poll(() => line.isVisible()).toBe(true);
}

async function atWidth(page: Page, width: 1280 | 390): Promise<void> {
  await page.setViewportSize({ width, height: width === 1280 ? 800 : 844 });
  await page.reload();
  await page.getByTestId('plan-node').first().waitFor();
}

describe('the editor', () => {
  test.each([
    ['en-US', 'light'],
    ['pt-BR', 'dark'],
  ] as const)('opens an 8-block plan with its lines, readable, no control over a block, the canvas given the room (%s, %s)', async (locale, colorScheme) => {
    const plan = await createPlan(harness.server, member.token, `Opening hours ${locale}`, { nodes: fixture.nodes, edges: fixture.edges, settings: fixture.settings });
    const page = await openPlanEditor(harness, plan.id, member, { locale, colorScheme });
    const canvas = page.getByTestId('plan-canvas');

    await atWidth(page, 1280);
    // Beside the menu of a 1280 px screen the whole plan reads: every line is drawn.
    await expectOpenedWell(canvas, 0.6, true);
    // The plan has blocks and none is selected: the block list and the settings are folded.
    await expect.poll(() => page.getByTestId('palette-search').isHidden()).toBe(true);
    await expect.poll(() => page.getByTestId('editor-shell').locator('aside').isHidden()).toBe(true);
    // Both open, it had 426 of the 1280 px; now the plan has the width less the menu.
    expect((await canvas.boundingBox())!.width).toBeGreaterThan(950);
    // Every block whole in the canvas, none cut at its edge.
    const frame1280 = (await canvas.boundingBox())!;
    for (const block of (await looksOf(canvas)).blocks) {
      expect(block.x).toBeGreaterThanOrEqual(frame1280.x);
      expect(block.x + block.width).toBeLessThanOrEqual(frame1280.x + frame1280.width);
    }
    // The lines read against the canvas in either scheme: 3:1 at least (WCAG 1.4.11).
    expect(await lineContrast(canvas)).toBeGreaterThanOrEqual(3);
    await screenshotStates(page, 'editor-opened', { group, widths: [1280] });

    // A block selected: its settings open beside the canvas; a change marks the work unsaved, the status read whole.
    await page.locator('[data-testid="plan-node"][data-node-id="welcome"]').click();
    await expect.poll(() => page.getByTestId('block-panel').isVisible()).toBe(true);
    await page.getByTestId('field-voice_text').fill(locale === 'en-US' ? 'Hello' : 'Olá');
    const status = page.getByTestId('editor-dirty');
    await expect.poll(() => status.textContent()).toBe(locale === 'en-US' ? 'Unsaved changes' : 'Alterações não salvas');
    expect(await status.evaluate((element) => element.scrollWidth <= element.clientWidth)).toBe(true);
    expect(await status.isVisible()).toBe(true);
    await screenshotStates(page, 'editor-selected', { group, widths: [1280] });
    await page.getByTestId('editor-save').click();
    await expect.poll(() => status.textContent()).toBe(locale === 'en-US' ? 'All changes saved' : 'Tudo salvo');

    await atWidth(page, 390);
    await expectOpenedWell(canvas, 0.6, false);
    // On a phone the start block opens in view, whole, under the notice and the buttons.
    const start = (await page.locator('[data-node-id="start"]').boundingBox())!;
    const frame = (await canvas.boundingBox())!;
    expect(start.x).toBeGreaterThanOrEqual(frame.x);
    expect(start.x + start.width).toBeLessThanOrEqual(Math.min(390, frame.x + frame.width));
    expect(start.y + start.height).toBeLessThanOrEqual(Math.min(844, frame.y + frame.height));
    await screenshotStates(page, 'editor-opened', { group, widths: [390] });
  });

  test('names a warning in Portuguese by the block\'s name, and flags a message with nothing to say', async () => {
    const node = (id: string, type: string, x: number, label: string, data: Record<string, unknown>) => ({ id, type, label, position: { x, y: 0 }, data });
    const plan = await createPlan(harness.server, member.token, 'Lint', {
      nodes: [
        { id: 'start', type: 'start', position: { x: 0, y: 0 }, data: {} },
        node('silent-x1', 'play_message', 260, 'Aviso', { voice_text: '', chat_text: '' }),
        node('island-q7', 'hangup', 520, 'Ilha', {}),
      ],
      edges: [{ id: 'start-next', source: 'start', source_exit: 'next', target: 'silent-x1' }],
      settings: fixture.settings,
    });
    const page = await openPlanEditor(harness, plan.id, member, { locale: 'pt-BR', colorScheme: 'dark' });
    await page.getByTestId('editor-issues').click();
    const warnings = page.getByTestId('issue-warning');
    await expect.poll(() => warnings.allTextContents()).toContainEqual(expect.stringContaining('Mensagem sem nada a dizer'));
    const texts = (await warnings.allTextContents()).join('\n');
    expect(texts).toContain('Aviso: A mensagem não tem texto nem áudio: não diz nada.');
    expect(texts).toContain('Ilha');
    expect(texts).not.toMatch(/island-q7|silent-x1/);
    await closeIssuesWithEscape(page);

    // The block's badge tells the same in its tooltip, by the name the person gave it.
    await page.locator('[data-node-id="island-q7"]').getByTestId('node-warning').hover();
    const tooltip = page.getByRole('tooltip');
    await expect.poll(() => tooltip.textContent()).toBe('Nenhum caminho a partir do bloco de início leva a “Ilha”.');
    await screenshotStates(page, 'editor-lint', { group, schemes: ['dark'], widths: [1280] });

    // On a phone the list is whole on the screen: at 420 px it ran off a 390-px one.
    await atWidth(page, 390);
    await openIssues(page);
    const dropdown = page.locator('.mantine-Popover-dropdown').filter({ has: page.getByTestId('issue-warning') });
    await untilStill(dropdown);
    const list = (await dropdown.boundingBox())!;
    expect(list.x).toBeGreaterThanOrEqual(0);
    expect(list.x + list.width).toBeLessThanOrEqual(390);
    await screenshotStates(page, 'editor-issues', { group, widths: [390] });
  });
});

describe('the read-only canvases', () => {
  test('a published version, at 1280 and 390, in English and Portuguese', async () => {
    for (const [locale, colorScheme] of [['en-US', 'light'], ['pt-BR', 'dark']] as const) {
      const page = await openPlanEditor(harness, publishedPlanId, member, { locale, colorScheme });
      for (const width of [1280, 390] as const) {
        await atWidth(page, width);
        await page.getByTestId('editor-more').click();
        await page.getByTestId('editor-versions').click();
        await page.getByTestId('version-view').first().click();
        const viewer = page.getByTestId('version-viewer').locator('.react-flow');
        await viewer.getByTestId('plan-node').first().waitFor();
        // Wide, the whole plan; on a phone no further out than blocks drawn in full (45 %), on its start.
        await expectOpenedWell(viewer, width === 1280 ? 0 : 0.45, width === 1280);
        expect((await looksOf(viewer)).minimaps).toBe(0);
        await screenshotStates(page, 'version-viewer', { group, widths: [width] });
      }
    }
  });

  test("a report's replay and the dashboard's heat map, at 1280 and 390, in English and Portuguese", async () => {
    for (const [locale, colorScheme] of [['en-US', 'light'], ['pt-BR', 'dark']] as const) {
      const { page } = await harness.newPage({ locale, colorScheme });
      await harness.signIn(page, member.username, member.password);
      for (const width of [1280, 390] as const) {
        await page.setViewportSize({ width, height: width === 1280 ? 800 : 844 });
        await page.goto(`/reports/${reportId}`);
        const replay = page.getByTestId('report-canvas');
        await replay.getByTestId('plan-node').first().waitFor();
        await expectOpenedWell(replay, width === 1280 ? 0 : 0.45, width === 1280);
        expect((await looksOf(replay)).minimaps).toBe(0);
        await replay.scrollIntoViewIfNeeded();
        await screenshotStates(page, 'report-replay', { group, widths: [width] });

        await page.goto('/dashboard');
        const heat = page.getByRole('region', { name: locale === 'en-US' ? 'Where calls and chats ended, on the plan' : 'Onde as chamadas e conversas terminaram, no plano' });
        await heat.getByTestId('plan-node').first().waitFor();
        await expectOpenedWell(heat, width === 1280 ? 0 : 0.45, width === 1280);
        expect((await looksOf(heat)).minimaps).toBe(0);
        await heat.scrollIntoViewIfNeeded();
        await screenshotStates(page, 'dashboard-heat-map', { group, widths: [width] });
      }
    }
  });
});

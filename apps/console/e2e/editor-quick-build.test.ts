import { AxeBuilder } from '@axe-core/playwright';
import type { VisualPlanDocument } from '@voxplan/contracts/visual-plan';
import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createTenantMember, type TenantMember } from '../../server/test/harness.ts';
import { type ConsoleHarness, createPlan, openPlanEditor, startConsole, untilStill } from './harness.ts';

/**
 * Building a plan in fewer steps (issue 31, bench:editor's front desk): the tenant's schedules and
 * destinations offered as ready blocks, a menu's keys, publishing from the whole window.
 */
let harness: ConsoleHarness;
let member: TenantMember;

type Body = Record<string, unknown>;
const node = (id: string, type: string, x: number, y = 0, data: Body = {}) => ({ id, type, position: { x, y }, data });

beforeAll(async () => {
  harness = await startConsole();
  const admin = await harness.server.login();
  member = await createTenantMember(harness.server, admin, 'quickbuild');
  const made = async (url: string, payload: Body) => {
    const response = await harness.server.call({ method: 'POST', url, token: member.token, payload });
    expect(response.statusCode, response.body).toBe(201);
  };
  await made('/date-ranges', { name: 'Business hours', time_zone: 'America/Sao_Paulo', intervals: [{ day: 'monday', start: '08:00', end: '18:00' }] });
  await made('/destinations', { name: 'Sales', kind: 'voice', uri: 'sip:sales@pbx.example.com' });
  await made('/destinations', { name: 'Support', kind: 'voice', uri: 'sip:support@pbx.example.com' });
});
afterAll(() => harness.close());

const draftOf = async (id: number) => (await harness.server.call({ method: 'GET', url: `/visual-plans/${id}/document`, token: member.token })).json<VisualPlanDocument>();
const nodeOf = (page: Page, id: string): Locator => page.locator(`[data-testid="plan-node"][data-node-id="${id}"]`);
const nodesOfType = (page: Page, type: string): Locator => page.locator(`[data-testid="plan-node"][data-node-type="${type}"]`);

describe('ready blocks', () => {
  test.each([
    { locale: 'en-US', colorScheme: 'light', heading: 'Ready blocks', type: 'Destination', schedule: 'Date range · Business hours' },
    { locale: 'pt-BR', colorScheme: 'dark', heading: 'Blocos prontos', type: 'Destino', schedule: 'Horário · Business hours' },
  ] as const)('the "+" offers the tenant\'s schedules and destinations as ready blocks: one pick adds the block already pointing at it, connected ($locale, $colorScheme)', async ({ locale, colorScheme, heading, type, schedule }) => {
    const destination = `${type} · Support`;
    const plan = await createPlan(harness.server, member.token, `Ready ${locale}`, { nodes: [node('start', 'start', 0)], edges: [] });
    const page = await openPlanEditor(harness, plan.id, member, { locale, colorScheme });
    await nodeOf(page, 'start').getByTestId('exit-add-next').click();
    const picker = page.getByTestId('block-picker');
    const ready = picker.getByTestId('ready-blocks');
    // Before any search, in view above the block types, named as the tenant named them.
    await expect.poll(() => ready.getByRole('button').allTextContents()).toEqual([schedule, `${type} · Sales`, destination]);
    expect(await ready.getByText(heading).isVisible()).toBe(true);
    const axe = await new AxeBuilder({ page }).include('[data-testid="block-picker"]').analyze();
    expect(axe.violations.filter((violation) => violation.impact === 'serious' || violation.impact === 'critical').map((violation) => violation.id)).toEqual([]);
    await ready.getByRole('button', { name: schedule }).click();
    await expect.poll(() => nodesOfType(page, 'date_range').count()).toBe(1);
    const scheduleId = (await nodesOfType(page, 'date_range').getAttribute('data-node-id'))!;
    // The block says what it points to, and its form has the schedule chosen: no issue about it.
    await expect.poll(() => nodeOf(page, scheduleId).textContent()).toContain('Business hours');
    await expect.poll(() => page.getByTestId('block-panel').getByTestId('field-date_range_id').inputValue()).toBe('Business hours');

    // Searched, a ready block is found by its record's name, and Enter takes it when no block type matches.
    // The view glides after an add (300 ms, longer on a busy machine): a click during it lands where the block was.
    await untilStill(nodeOf(page, scheduleId));
    await nodeOf(page, scheduleId).getByTestId('exit-add-in_hours').click();
    await picker.getByTestId('picker-search').fill('supp');
    await expect.poll(() => ready.getByRole('button').allTextContents()).toEqual([destination]);
    await picker.getByTestId('picker-search').press('Enter');
    await expect.poll(() => nodesOfType(page, 'destination').count()).toBe(1);
    await page.getByTestId('editor-save').click();
    const destinationId = (await nodesOfType(page, 'destination').getAttribute('data-node-id'))!;
    await expect
      .poll(async () => {
        const saved = await draftOf(plan.id);
        return { links: saved.edges.map((edge) => `${edge.source}:${edge.source_exit}>${edge.target}`).sort(), data: (saved.nodes.find((block) => block.id === destinationId)?.data as Body | undefined)?.['destination_id'] };
      })
      .toEqual({ links: [`${scheduleId}:in_hours>${destinationId}`, `start:next>${scheduleId}`].sort(), data: expect.any(Number) });

    // Typing a block type's name still finds that type first: Enter adds a plain destination, its choice left to make.
    await untilStill(nodeOf(page, destinationId));
    await nodeOf(page, destinationId).getByTestId('exit-add-busy').click();
    await picker.getByTestId('picker-search').fill(type.slice(0, 5));
    const first = picker.getByRole('button').first();
    expect(await first.getAttribute('data-testid')).toBe('picker-destination');
    await picker.getByTestId('picker-search').press('Enter');
    await expect.poll(() => nodesOfType(page, 'destination').count()).toBe(2);
    await expect.poll(() => page.getByTestId('block-panel').getByTestId('field-destination_id').inputValue()).toBe('');
  });
});

describe('a message typed in the picker', () => {
  test.each([
    { locale: 'en-US', colorScheme: 'light', sentence: 'Welcome to the front desk.', entry: 'Say “Welcome to the front desk.”' },
    { locale: 'pt-BR', colorScheme: 'dark', sentence: 'Bem-vindo à recepção.', entry: 'Falar “Bem-vindo à recepção.”' },
  ] as const)('a sentence that matches no block is offered first as a message saying it: Enter adds it, connected, the text in its form ($locale, $colorScheme)', async ({ locale, colorScheme, sentence, entry }) => {
    const plan = await createPlan(harness.server, member.token, `Say ${locale}`, { nodes: [node('start', 'start', 0)], edges: [] });
    const page = await openPlanEditor(harness, plan.id, member, { locale, colorScheme });
    await nodeOf(page, 'start').getByTestId('exit-add-next').click();
    const picker = page.getByTestId('block-picker');
    // A block's name still finds the block, not a message.
    await picker.getByTestId('picker-search').fill('hang');
    expect(await picker.getByTestId('picker-say').count()).toBe(0);
    await picker.getByTestId('picker-search').fill(sentence);
    const first = picker.getByRole('button').first();
    expect(await first.getAttribute('data-testid')).toBe('picker-say');
    expect(await first.textContent()).toBe(entry);
    const axe = await new AxeBuilder({ page }).include('[data-testid="block-picker"]').analyze();
    expect(axe.violations.filter((violation) => violation.impact === 'serious' || violation.impact === 'critical').map((violation) => violation.id)).toEqual([]);
    await picker.getByTestId('picker-search').press('Enter');
    await expect.poll(() => nodesOfType(page, 'play_message').count()).toBe(1);
    const messageId = (await nodesOfType(page, 'play_message').getAttribute('data-node-id'))!;
    // The block shows its first words, its form holds the sentence, and it follows the exit.
    await expect.poll(() => nodeOf(page, messageId).textContent()).toContain(sentence.slice(0, 10));
    expect(await page.getByTestId('block-panel').getByTestId('field-voice_text').inputValue()).toBe(sentence);
    await page.getByTestId('editor-save').click();
    await expect
      .poll(async () => {
        const saved = await draftOf(plan.id);
        return { links: saved.edges.map((edge) => `${edge.source}:${edge.source_exit}>${edge.target}`), text: (saved.nodes.find((block) => block.id === messageId)?.data as Body | undefined)?.['voice_text'] };
      })
      .toEqual({ links: [`start:next>${messageId}`], text: sentence });
  });
});

describe('ending at an exit', () => {
  test.each([
    { locale: 'en-US', colorScheme: 'light', label: /^End here, after “[^”]+”$/ },
    { locale: 'pt-BR', colorScheme: 'dark', label: /^Encerrar aqui, depois de “[^”]+”$/ },
  ] as const)('an unconnected exit\'s "end here" adds a hang-up block after it in one click, connected; a connected exit offers none ($locale, $colorScheme)', async ({ locale, colorScheme, label }) => {
    const plan = await createPlan(harness.server, member.token, `End here ${locale}`, {
      nodes: [node('start', 'start', 0), node('hello', 'play_message', 300, 0, { voice_text: 'Hello' })],
      edges: [{ id: 'start-next', source: 'start', source_exit: 'next', target: 'hello' }],
    });
    const page = await openPlanEditor(harness, plan.id, member, { locale, colorScheme });
    expect(await nodeOf(page, 'start').getByTestId('exit-end-next').count()).toBe(0);
    const end = nodeOf(page, 'hello').getByTestId('exit-end-next');
    expect(await end.getAttribute('aria-label')).toMatch(label);
    const axe = await new AxeBuilder({ page }).include('[data-testid="plan-node"][data-node-id="hello"]').analyze();
    expect(axe.violations.filter((violation) => violation.impact === 'serious' || violation.impact === 'critical').map((violation) => violation.id)).toEqual([]);
    await end.click();
    await expect.poll(() => nodesOfType(page, 'hangup').count()).toBe(1);
    const hangupId = (await nodesOfType(page, 'hangup').getAttribute('data-node-id'))!;
    // Connected now: neither "+" nor "end here" is left on that exit.
    await expect.poll(() => nodeOf(page, 'hello').getByTestId('exit-end-next').count()).toBe(0);
    await page.getByTestId('editor-save').click();
    await expect
      .poll(async () => (await draftOf(plan.id)).edges.map((edge) => `${edge.source}:${edge.source_exit}>${edge.target}`).sort())
      .toEqual([`hello:next>${hangupId}`, 'start:next>hello']);
  });
});

describe('menu keys', () => {
  test('a menu option\'s key takes only what a phone sends (digits, * and #), and a new option comes with the next free key', async () => {
    const plan = await createPlan(harness.server, member.token, 'Menu keys', {
      nodes: [node('start', 'start', 0), node('menu', 'voice_menu', 300, 0, { voice_text: 'Press 1 or 2', options: [{ digits: '1', label: 'Sales' }] })],
      edges: [{ id: 'start-next', source: 'start', source_exit: 'next', target: 'menu' }],
    });
    const page = await openPlanEditor(harness, plan.id, member);
    await nodeOf(page, 'menu').click();
    const panel = page.getByTestId('block-panel');
    await panel.getByTestId('add-options').click();
    // Option 1 is taken: the new one is 2, and the menu grows its exit 2 at once.
    expect(await panel.getByTestId('field-options.1.digits').inputValue()).toBe('2');
    await expect.poll(() => nodeOf(page, 'menu').getByTestId('exit-add-2').count()).toBe(1);
    const key = panel.getByTestId('field-options.1.digits');
    await key.fill('');
    await key.pressSequentially('9a b*#x');
    expect(await key.inputValue()).toBe('9*#');
    await key.fill('');
    await key.pressSequentially('zero');
    expect(await key.inputValue()).toBe('');
    await key.pressSequentially('3');
    await panel.getByTestId('add-options').click();
    // 1 and 3 taken: the next free key on the keypad is 2.
    expect(await panel.getByTestId('field-options.2.digits').inputValue()).toBe('2');
    await page.getByTestId('editor-save').click();
    await expect.poll(async () => ((await draftOf(plan.id)).nodes.find((block) => block.id === 'menu')?.data as Body | undefined)?.['options']).toEqual([
      { digits: '1', label: 'Sales' },
      { digits: '3', label: '' },
      { digits: '2', label: '' },
    ]);
  });
});

describe("a menu's options from its prompt", () => {
  test.each([
    { locale: 'en-US', colorScheme: 'light', prompt: 'Press 1 for sales, 2 for support.', labels: ['Sales', 'Support'], note: "Taken from the prompt's text; edit them as you like.", longer: 'Press 1 for sales, 2 for support, 3 for billing.' },
    { locale: 'pt-BR', colorScheme: 'dark', prompt: 'Tecle 1 para vendas ou 2 para suporte.', labels: ['Vendas', 'Suporte'], note: 'Tiradas do texto da mensagem; edite-as como quiser.', longer: 'Tecle 1 para vendas, 2 para suporte, 3 para cobrança.' },
  ] as const)('a new menu\'s prompt that names its options fills them and their exits, says so, and never overwrites an option the person changed ($locale, $colorScheme)', async ({ locale, colorScheme, prompt, labels, note, longer }) => {
    const plan = await createPlan(harness.server, member.token, `Prompt options ${locale}`, { nodes: [node('start', 'start', 0)], edges: [] });
    const page = await openPlanEditor(harness, plan.id, member, { locale, colorScheme });
    await nodeOf(page, 'start').getByTestId('exit-add-next').click();
    await page.getByTestId('block-picker').getByTestId('picker-voice_menu').click();
    await expect.poll(() => nodesOfType(page, 'voice_menu').count()).toBe(1);
    const menuId = (await nodesOfType(page, 'voice_menu').getAttribute('data-node-id'))!;
    const panel = page.getByTestId('block-panel');
    await panel.getByTestId('field-voice_text').fill(prompt);
    const options = async () => [0, 1, 2].map(async (index) => {
      const row = panel.getByTestId(`row-options.${index}`);
      return (await row.count()) === 0 ? null : `${await row.getByTestId(`field-options.${index}.digits`).inputValue()}:${await row.getByTestId(`field-options.${index}.label`).inputValue()}`;
    });
    const filled = async () => (await Promise.all(await options())).filter((option) => option !== null);
    await expect.poll(filled).toEqual([`1:${labels[0]}`, `2:${labels[1]}`]);
    // Its exits appear at once, labelled as the options are; the form says where they came from.
    await expect.poll(() => nodeOf(page, menuId).getByTestId('exit-add-2').count()).toBe(1);
    await expect.poll(() => nodeOf(page, menuId).textContent()).toContain(`2 · ${labels[1]}`);
    expect(await panel.getByTestId('filled-options').textContent()).toBe(note);
    const axe = await new AxeBuilder({ page }).include('[data-testid="block-panel"]').analyze();
    expect(axe.violations.filter((violation) => violation.impact === 'serious' || violation.impact === 'critical').map((violation) => violation.id)).toEqual([]);

    // The person makes option 1 their own: a longer prompt no longer changes the options, and the note goes.
    await panel.getByTestId('field-options.0.label').fill(`${labels[0]} team`);
    await panel.getByTestId('field-voice_text').fill(longer);
    await expect.poll(() => panel.getByTestId('field-voice_text').inputValue()).toBe(longer);
    expect(await filled()).toEqual([`1:${labels[0]} team`, `2:${labels[1]}`]);
    expect(await panel.getByTestId('filled-options').count()).toBe(0);
    await page.getByTestId('editor-save').click();
    await expect.poll(async () => ((await draftOf(plan.id)).nodes.find((block) => block.id === menuId)?.data as Body | undefined)?.['options']).toEqual([
      { digits: '1', label: `${labels[0]} team` },
      { digits: '2', label: labels[1] },
    ]);
  });
});

describe('a view that keeps the growing plan in reach', () => {
  const zoomOf = async (page: Page) => Number(/scale\(([\d.]+)\)/.exec((await page.locator('.react-flow__viewport').getAttribute('style')) ?? '')?.[1]);
  const overlap = (a: Box, b: Box) => a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
  type Box = { x: number; y: number; width: number; height: number };

  test.each([
    { locale: 'en-US', colorScheme: 'light', sentences: ['Thanks for calling.', 'Your call matters.', 'Please hold on.', 'Almost there.'] },
    { locale: 'pt-BR', colorScheme: 'dark', sentences: ['Obrigado por ligar.', 'Sua chamada importa.', 'Aguarde um pouco.', 'Quase lá.'] },
  ] as const)('after each block added from a "+", the whole plan is in view, readable and clear of the minimap and the controls; a view moved by hand stays put ($locale, $colorScheme)', async ({ locale, colorScheme, sentences }) => {
    const plan = await createPlan(harness.server, member.token, `Follow ${locale}`, {
      nodes: [node('start', 'start', 0), node('hello', 'play_message', 300, 0, { voice_text: 'Hello' })],
      edges: [{ id: 'start-next', source: 'start', source_exit: 'next', target: 'hello' }],
    });
    const page = await openPlanEditor(harness, plan.id, member, { locale, colorScheme });
    // The minimap shown (never chosen, the editor opens without it): the view must keep blocks from under it too.
    await page.getByTestId('toggle-minimap').click();
    await page.locator('.react-flow__minimap').waitFor();
    const made = ['start', 'hello'];
    const views: string[] = [];
    for (const sentence of sentences) {
      const last = made.at(-1)!;
      await untilStill(nodeOf(page, last));
      await nodeOf(page, last).getByTestId('exit-add-next').click();
      await page.getByTestId('block-picker').getByTestId('picker-search').fill(sentence);
      await page.getByTestId('block-picker').getByTestId('picker-search').press('Enter');
      // The block added is selected, its form open (the canvas draws only the blocks in view).
      let added = '';
      await expect.poll(async () => {
        added = (await page.getByTestId('block-panel').getAttribute('data-node-id')) ?? '';
        return added.startsWith('play-message-') && !made.includes(added);
      }).toBe(true);
      made.push(added);
      await untilStill(nodeOf(page, added));
      // The whole plan in view, clear of the minimap and the zoom controls, at a zoom where blocks read;
      // once it is too wide for that (beside the side panel the block just added opened), at the
      // least readable zoom with the block just added in view, clear of them.
      const canvas = (await page.getByTestId('plan-canvas').boundingBox())!;
      const [minimap, controls] = [(await page.locator('.react-flow__minimap').boundingBox())!, (await page.locator('.react-flow__controls').boundingBox())!];
      const clear = async (id: string) => {
        // A block out of view is not drawn at all (React Flow draws only what is in view).
        const box = (await nodeOf(page, id).count()) === 0 ? null : await nodeOf(page, id).boundingBox();
        return box !== null && box.x >= canvas.x && box.y >= canvas.y && box.x + box.width <= canvas.x + canvas.width && box.y + box.height <= canvas.y + canvas.height && !overlap(box, minimap) && !overlap(box, controls);
      };
      const whole = (await Promise.all(made.map(clear))).every(Boolean);
      const zoom = await zoomOf(page);
      views.push(whole ? 'whole plan' : zoom === 0.5 && (await clear(added)) ? 'new block' : `lost at ${zoom}`);
      expect(zoom).toBeGreaterThanOrEqual(0.5);
    }
    expect(views[0]).toBe('whole plan');
    expect(views.filter((view) => view !== 'whole plan' && view !== 'new block'), views.join(', ')).toEqual([]);
    expect(views.at(-1)).toBe('new block');
    // The view is the person's between adds: zoomed by hand, then a block's text edited, it does not move.
    await page.locator('.react-flow__controls-zoomout').click();
    await untilStill(nodeOf(page, made.at(-1)!));
    const byHand = await page.locator('.react-flow__viewport').getAttribute('style');
    await page.getByTestId('block-panel').getByTestId('field-voice_text').fill('Edited, not added.');
    await expect.poll(() => nodeOf(page, made.at(-1)!).textContent()).toContain('Edited, not added.');
    await untilStill(nodeOf(page, made.at(-1)!));
    expect(await page.locator('.react-flow__viewport').getAttribute('style')).toBe(byHand);
  });
});

describe('publishing from the whole window', () => {
  test('Publish in the whole window saves what is unsaved first, says so in its dialog, and publishes it', async () => {
    const plan = await createPlan(harness.server, member.token, 'Whole-window publish', { nodes: [node('start', 'start', 0)], edges: [] });
    const page = await openPlanEditor(harness, plan.id, member);
    await page.getByTestId('toggle-whole-window').click();
    await nodeOf(page, 'start').getByTestId('exit-add-next').click();
    await page.getByTestId('block-picker').getByTestId('picker-hangup').click();
    await expect.poll(() => page.getByTestId('editor-dirty').textContent()).toBe('Unsaved changes');
    await page.getByTestId('editor-publish').click();
    const dialog = page.getByTestId('publish-dialog');
    expect(await dialog.getByTestId('publish-saves-first').textContent()).toBe('Your unsaved changes are saved first, as a new version, then published.');
    await dialog.getByTestId('confirm-publish').click();
    await expect.poll(async () => {
      const saved = await draftOf(plan.id);
      return { published: saved.published_version, version: saved.version, blocks: saved.nodes.map((block) => block.type).sort() };
    }).toEqual({ published: plan.version + 1, version: plan.version + 1, blocks: ['hangup', 'start'] });
    // Still in the whole window: the canvas kept the window.
    expect(await page.getByTestId('editor-shell').getAttribute('data-whole-window')).not.toBeNull();
    expect(await page.getByTestId('editor-dirty').textContent()).not.toBe('Unsaved changes');
  });
});

import { AxeBuilder } from '@axe-core/playwright';
import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createTenantMember, createTenantUser, type TenantMember } from '../../server/test/harness.ts';
import { type ConsoleHarness, createPlan, startConsole } from './harness.ts';
import { screenshotStates } from './screenshots.ts';

/**
 * The editor's test panel on the simulator (docs/simulator.md): a voice call driven with the
 * keypad while the canvas lights the path, a chat through the menu's option buttons, a run from a
 * chosen block, a refusal in the user's words, and a guest who may not run plans.
 */
let harness: ConsoleHarness;
let member: TenantMember;
let guest: { username: string; password: string };
let planId: number;
/** A payment reminder that calls out: a condition on answered_by sends an answering machine to a short message. */
let reminderId: number;

const node = (id: string, type: string, x: number, data: Record<string, unknown> = {}) => ({ id, type, position: { x, y: 0 }, data });
const edge = (source: string, exit: string, target: string) => ({ id: `${source}-${exit}`, source, source_exit: exit, target });

beforeAll(async () => {
  harness = await startConsole();
  const admin = await harness.server.login();
  member = await createTenantMember(harness.server, admin, 'paneltenant');
  guest = await createTenantUser(harness.server, admin, member.tenantId, 'panel-guest', 'guest');
  planId = (
    await createPlan(harness.server, member.token, 'Front desk', {
      nodes: [
        node('start', 'start', 0),
        node('menu', 'voice_menu', 250, {
          voice_text: 'Press 1 to hear our thanks, 2 to leave.',
          chat_text: 'What would you like?',
          options: [
            { digits: '1', label: 'Thanks' },
            { digits: '2', label: 'Leave' },
          ],
        }),
        // Below the menu rather than beyond it: the canvas opens at a readable zoom, and a block
        // drawn behind the test panel is not drawn at all (only what is in view is).
        { ...node('thanks', 'play_message', 0, { voice_text: 'Thank you for calling', chat_text: 'Thank you for writing' }), position: { x: 250, y: 220 } },
        { ...node('bye', 'hangup', 0), position: { x: 0, y: 220 } },
      ],
      edges: [edge('start', 'next', 'menu'), edge('menu', '1', 'thanks'), edge('menu', '2', 'bye'), edge('menu', 'timeout', 'bye'), edge('menu', 'invalid', 'bye')],
    })
  ).id;
  reminderId = (
    await createPlan(harness.server, member.token, 'Payment reminder', {
      // In a column, so that the narrow canvas beside the panel shows both branches.
      nodes: [
        { ...node('start', 'start', 0), position: { x: 120, y: 0 } },
        { ...node('who', 'condition', 0, { rules: [{ left: '{{answered_by}}', op: 'eq', right: 'machine' }] }), position: { x: 120, y: 110 } },
        { ...node('voicemail', 'play_message', 0, { voice_text: 'Please call us back about your invoice.' }), position: { x: 0, y: 260 } },
        { ...node('greeting', 'play_message', 0, { voice_text: 'Hello, this is a reminder about your invoice.' }), position: { x: 260, y: 260 } },
      ],
      edges: [edge('start', 'next', 'who'), edge('who', 'true', 'voicemail'), edge('who', 'false', 'greeting')],
    })
  ).id;
});
afterAll(() => harness.close());

/** The editor of the plan with its test panel open and connected. */
async function openPanel(who: { username: string; password: string }, options: { locale?: string; colorScheme?: 'light' | 'dark'; plan?: number } = {}): Promise<Page> {
  const { page } = await harness.newPage(options);
  await harness.signIn(page, who.username, who.password);
  await page.goto(`/visual-plan/${options.plan ?? planId}`);
  await page.getByTestId('plan-canvas').locator('.react-flow__node').first().waitFor();
  await page.getByTestId('editor-test').click();
  await page.getByTestId('test-panel').waitFor();
  return page;
}

const panel = (page: Page): Locator => page.getByTestId('test-panel');
const block = (page: Page, id: string): Locator => page.locator(`[data-testid="plan-node"][data-node-id="${id}"]`);
const statusOf = (page: Page) => page.getByTestId('test-panel-status').textContent();

/** Serious and critical axe findings inside the panel. */
async function panelViolations(page: Page): Promise<string[]> {
  const results = await new AxeBuilder({ page }).include('[data-testid="test-panel"]').analyze();
  return results.violations.filter((violation) => violation.impact === 'serious' || violation.impact === 'critical').map((violation) => `${violation.id}: ${violation.help}`);
}

describe('test panel', () => {
  test('a voice call: the keypad answers the menu while the canvas lights the path, then the report', async () => {
    const page = await openPanel(member);
    await expect.poll(() => page.getByTestId('test-panel-connection').textContent()).toBe('Connected');
    // The gather's own clock (5 s) could run out on a loaded machine before the key is pressed.
    await page.getByTestId('test-panel-auto-timeout').click();
    await page.getByTestId('test-panel-start').click();

    await expect.poll(() => statusOf(page)).toBe('The plan waits for the caller.');
    expect(await page.getByTestId('test-panel-transcript').textContent()).toContain('Press 1 to hear our thanks, 2 to leave.');
    expect(await block(page, 'menu').getAttribute('data-current')).toBe('true');
    expect(await block(page, 'start').getAttribute('data-visited')).toBe('true');
    expect(await block(page, 'thanks').getAttribute('data-visited')).toBeNull();
    expect(await panelViolations(page)).toEqual([]);

    await panel(page).getByRole('button', { name: 'Key 1' }).click();
    await expect.poll(() => statusOf(page)).toBe('The run has ended.');
    const transcript = await page.getByTestId('test-panel-transcript').textContent();
    expect(transcript).toContain('Pressed 1');
    expect(transcript).toContain('Thank you for calling');
    expect(await block(page, 'thanks').getAttribute('data-visited')).toBe('true');
    // The canvas follows the run to its last block: of those in view, none off the path is lit.
    expect(await page.locator('[data-testid="plan-node"][data-node-id="bye"][data-visited]').count()).toBe(0);
    const report = page.getByTestId('test-panel-report');
    expect(await report.getByRole('row', { name: /Keys pressed/ }).textContent()).toContain('1');
    expect(await report.getByRole('row', { name: /Last block/ }).textContent()).toBe('Last blockPlay message · Thank you for calling');

    // The plan has never been published: the refusal is said in the user's words, and no run starts.
    await page.getByTestId('test-panel-version').click();
    await page.getByRole('option', { name: 'Published', exact: true }).click();
    await page.getByTestId('test-panel-start').click();
    await expect.poll(() => page.getByTestId('test-panel-error').last().textContent()).toBe('This plan has no published version yet: publish it, or run the draft.');
    expect(await statusOf(page)).toBe('Choose the version and the channel, then start.');
    // The refused run lit nothing, and the last run's path is gone.
    expect(await page.locator('[data-testid="plan-node"][data-visited]').count()).toBe(0);
  });

  test('a chat in Portuguese and the dark scheme: the menu offers its options as buttons', async () => {
    const page = await openPanel(member, { locale: 'pt-BR', colorScheme: 'dark' });
    await expect.poll(() => page.getByTestId('test-panel-connection').textContent()).toBe('Conectado');
    await panel(page).getByText('Chat', { exact: true }).click();
    await page.getByTestId('test-panel-start').click();
    await expect.poll(() => statusOf(page)).toBe('O plano aguarda quem liga.');
    expect(await page.getByTestId('test-panel-transcript').textContent()).toContain('What would you like?');
    expect(await panelViolations(page)).toEqual([]);

    await panel(page).getByRole('group', { name: 'Opções do menu' }).getByRole('button', { name: 'Leave' }).click();
    await expect.poll(() => statusOf(page)).toBe('O teste terminou.');
    expect(await page.getByTestId('test-panel-caller').last().textContent()).toBe('Leave');
    expect(await block(page, 'bye').getAttribute('data-visited')).toBe('true');
    expect(await block(page, 'thanks').getAttribute('data-visited')).toBeNull();
    expect(await page.getByTestId('test-panel-report').getByRole('row', { name: /Desfecho/ }).textContent()).toContain('Retida');

    // Restart: a new run from the start, the old path gone from the canvas.
    await page.getByTestId('test-panel-start').click();
    await expect.poll(() => statusOf(page)).toBe('O plano aguarda quem liga.');
    expect(await block(page, 'bye').getAttribute('data-visited')).toBeNull();
    expect(await block(page, 'menu').getAttribute('data-current')).toBe('true');
  });

  test('test from a chosen block: the run begins at that block, and the path with it', async () => {
    const { page } = await harness.newPage();
    await harness.signIn(page, member.username, member.password);
    await page.goto(`/visual-plan/${planId}`);
    await block(page, 'thanks').click();
    await page.getByTestId('block-panel').and(page.locator('[data-node-id="thanks"]')).getByTestId('test-from-block').click();
    expect(await page.getByTestId('test-panel-starts-at').textContent()).toBe('The run begins at the block “Play message · Thank you for calling”.');
    await expect.poll(() => page.getByTestId('test-panel-connection').textContent()).toBe('Connected');
    await panel(page).getByText('Chat', { exact: true }).click();
    await page.getByTestId('test-panel-start').click();

    // The play_message block leads nowhere: the run says its text and ends, never passing the menu.
    await expect.poll(() => statusOf(page)).toBe('The run has ended.');
    expect(await page.getByTestId('test-panel-path').locator('li').evaluateAll((items) => items.map((item) => item.getAttribute('data-node-id')))).toEqual(['thanks']);
    // The path names the block as the canvas shows it, never by its id.
    const step = await page.getByTestId('test-panel-path').locator('li').first().textContent();
    expect(step).toMatch(/^Play message · Thank you for calling/);
    expect(step).not.toContain('thanks');
    expect(await page.getByTestId('test-panel-transcript').textContent()).toContain('Thank you for writing');
    expect(await block(page, 'thanks').getAttribute('data-visited')).toBe('true');
    for (const other of ['start', 'menu']) expect(await block(page, other).getAttribute('data-visited')).toBeNull();
  });

  describe.each([
    {
      locale: 'en-US',
      colorScheme: 'light',
      connected: 'Connected',
      outbound: 'Outbound',
      machine: 'Answers (an answering machine)',
      busy: 'Is busy',
      ended: 'The run has ended.',
      answeredByMachine: 'Called +5511912345678: an answering machine answered.',
      busyTitle: 'Busy: the line was engaged.',
      rows: { direction: ['Direction', 'Outbound'], answeredBy: ['Answered by', 'an answering machine'], dialStatus: ['Dial status', 'Busy'] },
    },
    {
      locale: 'pt-BR',
      colorScheme: 'dark',
      connected: 'Conectado',
      outbound: 'Originada',
      machine: 'Atende (uma secretária eletrônica)',
      busy: 'Está ocupado',
      ended: 'O teste terminou.',
      answeredByMachine: 'Chamada para +5511912345678: uma secretária eletrônica atendeu.',
      busyTitle: 'Ocupado: a linha estava ocupada.',
      rows: { direction: ['Sentido', 'Originada'], answeredBy: ['Atendida por', 'uma secretária eletrônica'], dialStatus: ['Resultado da discagem', 'Ocupado'] },
    },
  ] as const)('an outbound call ($locale)', (texts) => {
    // The panel scrolls on its own: the outcome is brought into view as a person would scroll to it.
    const showOutcome = (page: Page) => page.getByTestId('test-panel-outbound').scrollIntoViewIfNeeded();
    // Scrolling the panel leaves the canvas where it was: its top at its frame's, nothing cut off.
    const canvasLift = (page: Page) => page.getByTestId('plan-canvas').evaluate((canvas) => canvas.parentElement!.getBoundingClientRect().top + 1 - canvas.getBoundingClientRect().top);
    const row = (page: Page, [name, value]: readonly [string, string]) =>
      expect.poll(() => page.getByTestId('test-panel-report').getByRole('row', { name: new RegExp(`^${name}`) }).textContent()).toBe(`${name}${value}`);

    test('answered by a machine, it takes the machine branch on the canvas; a busy line ends at once, and says so', async () => {
      const page = await openPanel(member, { locale: texts.locale, colorScheme: texts.colorScheme, plan: reminderId });
      await expect.poll(() => page.getByTestId('test-panel-connection').textContent()).toBe(texts.connected);
      await panel(page).getByText(texts.outbound, { exact: true }).click();
      // Nothing to call yet: the run waits for a number.
      expect(await page.getByTestId('test-panel-start').isDisabled()).toBe(true);
      await page.getByTestId('test-panel-outbound-to').fill('+55 11 91234-5678');
      await panel(page).getByRole('radio', { name: texts.machine }).check();
      await screenshotStates(page, 'outbound-options', { group: 'test-panel', settle: (shot) => shot.getByTestId('test-panel-callee').scrollIntoViewIfNeeded() });
      expect(await panelViolations(page)).toEqual([]);

      await page.getByTestId('test-panel-start').click();
      await expect.poll(() => statusOf(page)).toBe(texts.ended);
      expect(await page.getByTestId('test-panel-outbound').textContent()).toBe(texts.answeredByMachine);
      expect(await page.getByTestId('test-panel-outbound').isVisible()).toBe(true);
      expect(await block(page, 'voicemail').getAttribute('data-visited')).toBe('true');
      expect(await block(page, 'greeting').getAttribute('data-visited')).toBeNull();
      expect(await page.getByTestId('test-panel-transcript').textContent()).toContain('Please call us back about your invoice.');
      await row(page, texts.rows.direction);
      await row(page, texts.rows.answeredBy);
      await screenshotStates(page, 'outbound-machine', { group: 'test-panel', settle: showOutcome });

      await panel(page).getByRole('radio', { name: texts.busy }).check();
      await page.getByTestId('test-panel-start').click();
      await expect.poll(() => page.getByTestId('test-panel-outbound').textContent()).toContain(texts.busyTitle);
      expect(await statusOf(page)).toBe(texts.ended);
      // The plan never ran: no block lit, no path, a report with the dial status.
      for (const id of ['start', 'who', 'voicemail', 'greeting']) expect(await block(page, id).getAttribute('data-visited')).toBeNull();
      await row(page, texts.rows.dialStatus);
      await row(page, texts.rows.direction);
      await screenshotStates(page, 'outbound-busy', { group: 'test-panel', settle: showOutcome });
      await showOutcome(page);
      expect(await page.getByTestId('test-panel-outbound').isVisible()).toBe(true);
      expect(await canvasLift(page)).toBe(0);
      expect(await panelViolations(page)).toEqual([]);
    });
  });

  test('a guest sees the panel disabled, with the reason', async () => {
    const page = await openPanel(guest);
    expect(await page.getByTestId('test-panel-guest').textContent()).toBe('Guests cannot run plans: a test run stores a session and its report.');
    expect(await page.getByTestId('test-panel-start').isDisabled()).toBe(true);
    expect(await page.getByTestId('test-panel-connection').textContent()).toBe('Not allowed');
  });
});

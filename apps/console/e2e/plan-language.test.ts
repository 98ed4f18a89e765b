import type { VisualPlanDocument } from '@voxplan/contracts/visual-plan';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createTenantMember, type TenantMember } from '../../server/test/harness.ts';
import { openIssues } from './canvas-locators.ts';
import { type ConsoleHarness, createPlan, startConsole } from './harness.ts';

/**
 * A plan's language and voices in the editor (docs/engine.md, "Language and voices"): a Twilio voice
 * of another language refused on save, in English and in Portuguese, and the test panel speaking a
 * Portuguese plan in Portuguese with the browser's own speech synthesis.
 */
let harness: ConsoleHarness;
let member: TenantMember;

const node = (id: string, type: string, x: number, data: Record<string, unknown> = {}) => ({ id, type, position: { x, y: 0 }, data });
const edge = (source: string, exit: string, target: string) => ({ id: `${source}-${exit}`, source, source_exit: exit, target });

beforeAll(async () => {
  harness = await startConsole();
  const admin = await harness.server.login();
  member = await createTenantMember(harness.server, admin, 'languagetenant');
});
afterAll(() => harness.close());

async function openEditor(planId: number, options: { locale?: string } = {}): Promise<{ context: BrowserContext; page: Page }> {
  const opened = await harness.newPage(options);
  await harness.signIn(opened.page, member.username, member.password);
  await opened.page.goto(`/visual-plan/${planId}`);
  await opened.page.getByTestId('plan-canvas').locator('.react-flow__node').first().waitFor();
  return opened;
}

/** Picks an option of a Mantine select by its test id and the option's visible text. */
async function choose(page: Page, testId: string, option: string | RegExp): Promise<void> {
  await page.getByTestId(testId).click();
  await page.getByRole('option', { name: option }).click();
}

const draftOf = async (id: number) => (await harness.server.call({ method: 'GET', url: `/visual-plans/${id}/document`, token: member.token })).json<VisualPlanDocument>();

describe('a voice that does not speak the plan’s language', () => {
  for (const { locale, fieldError, issue, toast } of [
    {
      locale: 'en-US',
      fieldError: 'This voice does not speak the plan’s language: choose one of its voices.',
      issue: 'Voice of another language',
      toast: /^The plan was not saved: 1 problems to fix/,
    },
    {
      locale: 'pt-BR',
      fieldError: 'Esta voz não fala o idioma do plano: escolha uma das vozes dele.',
      issue: 'Voz de outro idioma',
      toast: /^O plano não foi salvo/,
    },
  ]) {
    test(`is refused on save, in ${locale}`, async () => {
      const plan = await createPlan(harness.server, member.token, `Voices ${locale}`, { nodes: [node('start', 'start', 0)], edges: [] });
      const before = (await draftOf(plan.id)).version;
      const { page } = await openEditor(plan.id, { locale });
      // The plan's settings are in the side panel, folded while nothing is selected.
      await page.getByTestId('fold-panel').click();
      // Portuguese, and one of its voices: only Portuguese voices are offered.
      await choose(page, 'settings-language', /pt-BR$/);
      await page.getByTestId('settings-twilio-voice').click();
      const camila = page.getByRole('option', { name: /^Polly\.Camila ·/ });
      await camila.waitFor({ state: 'visible' });
      expect(await page.getByRole('option', { name: /Polly\.Joanna/ }).count()).toBe(0);
      await camila.click();
      // The language changes under the chosen voice: the voice stays, marked.
      await choose(page, 'settings-language', /en-US$/);
      expect(await page.getByTestId('settings-twilio-voice').inputValue()).toMatch(/^Polly\.Camila/);
      await expect.poll(() => page.getByTestId('plan-settings').getByText(fieldError).count()).toBe(1);

      await page.getByTestId('editor-save').click();
      await expect.poll(() => page.getByText(toast).count()).toBe(1);
      await openIssues(page);
      expect(await page.getByTestId('issue-error').filter({ hasText: issue }).count()).toBe(1);
      // Nothing was stored.
      const stored = await draftOf(plan.id);
      expect(stored.version).toBe(before);
      expect(stored.settings).toMatchObject({ language: '', twilio_voice: '' });

      // A voice of the language is saved.
      await choose(page, 'settings-twilio-voice', /^Polly\.Joanna ·/);
      await page.getByTestId('editor-save').click();
      await expect.poll(async () => (await draftOf(plan.id)).settings).toMatchObject({ language: 'en-US', twilio_voice: 'Polly.Joanna' });
    });
  }
});

describe('the test panel', () => {
  test('speaks a Portuguese plan’s prompts in pt-BR, with a Portuguese voice when the browser has one', async () => {
    const plan = await createPlan(harness.server, member.token, 'Portuguese panel', {
      settings: { language: 'pt-BR' },
      nodes: [node('start', 'start', 0), node('hello', 'play_message', 250, { voice_text: 'Olá, obrigado por ligar.' }), node('abroad', 'play_message', 500, { voice_text: 'Hello there.', language: 'en-GB' })],
      edges: [edge('start', 'next', 'hello'), edge('hello', 'next', 'abroad')],
    });
    const { context, page } = await openEditor(plan.id);
    // What the panel hands the browser's speech synthesis, which then speaks it: the utterance's
    // language and voice, as the page's own script sees them.
    await context.addInitScript(() => {
      const spoken: Array<{ text: string; lang: string; voice: string | null }> = [];
      (window as unknown as { spoken: typeof spoken }).spoken = spoken;
      const speak = speechSynthesis.speak.bind(speechSynthesis);
      speechSynthesis.speak = (utterance: SpeechSynthesisUtterance) => {
        spoken.push({ text: utterance.text, lang: utterance.lang, voice: utterance.voice?.lang ?? null });
        speak(utterance);
      };
    });
    await page.reload();
    await page.getByTestId('plan-canvas').locator('.react-flow__node').first().waitFor();
    await page.getByTestId('editor-test').click();
    await expect.poll(() => page.getByTestId('test-panel-connection').textContent()).toBe('Connected');
    await page.getByTestId('test-panel-start').click();
    const spoken = () => page.evaluate(() => (window as unknown as { spoken: Array<{ text: string; lang: string; voice: string | null }> }).spoken);
    await expect.poll(async () => (await spoken()).length).toBe(2);
    const voices = await page.evaluate(() => speechSynthesis.getVoices().map((voice) => voice.lang));
    const hasLanguage = (primary: string) => voices.some((lang) => lang.toLowerCase().startsWith(primary));
    const [hello, abroad] = await spoken();
    expect(hello).toEqual({ text: 'Olá, obrigado por ligar.', lang: 'pt-BR', voice: hasLanguage('pt') ? expect.stringMatching(/^pt/i) : null });
    expect(abroad).toEqual({ text: 'Hello there.', lang: 'en-GB', voice: hasLanguage('en') ? expect.stringMatching(/^en/i) : null });
  });
});

import type { Audio } from '@voxplan/contracts';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { type FakeOpenAi, silentWav, startFakeOpenAi } from '../../server/test/fake-openai.ts';
import { createTenantMember } from '../../server/test/harness.ts';
import { openIssues } from './canvas-locators.ts';
import { chooseOption, type ConsoleHarness, createPlan, rowWith, startConsole, untilStill } from './harness.ts';

/**
 * The console's AI (issue 18): the audio screen's AI voices, offered to a tenant with an AI key and
 * spoken by the provider; the second AI provider's key, offered and kept only while its setting is on,
 * and the chatbot block's choice of it, offered only then and warned about when it is off.
 */

let fake: FakeOpenAi;
let harness: ConsoleHarness;
let withKey: { username: string; password: string };
let withoutKey: { username: string; password: string };
let admin: string;
let withKeyTenant: number;

beforeAll(async () => {
  fake = await startFakeOpenAi();
  harness = await startConsole({ OPENAI_BASE_URL: `${fake.url}/v1` });
  admin = await harness.server.login();
  const member = await createTenantMember(harness.server, admin, 'ai-voices');
  withKeyTenant = member.tenantId;
  withKey = member;
  withoutKey = await createTenantMember(harness.server, admin, 'keyless');
  const saved = await harness.server.call({ method: 'PATCH', url: `/tenants/${member.tenantId}/integrations`, token: admin, payload: { openai_key: 'sk-e2e-voices' } });
  expect(saved.statusCode, saved.body).toBe(200);
});

afterAll(async () => {
  await harness?.close();
  await fake?.close();
});

/** Turns the second AI provider's setting on or off, as an administrator does on the settings screen. */
async function setting(value: boolean) {
  const found = await harness.server.call({ method: 'GET', url: `/configurations?filter=${encodeURIComponent(JSON.stringify({ where: { name: 'feature_second_ai_provider' } }))}`, token: admin });
  const saved = await harness.server.call({ method: 'PATCH', url: `/configurations/${found.json<Array<{ id: number }>>()[0]!.id}`, token: admin, payload: { value: String(value) } });
  expect(saved.statusCode, saved.body).toBe(200);
}

async function openTts(user: { username: string; password: string }, locale: string) {
  const { page } = await harness.newPage({ locale });
  await harness.signIn(page, user.username, user.password);
  await page.goto('/audios');
  await page.getByTestId('audio-tts').click();
  return page;
}

test('a tenant with an AI key picks an AI voice beside espeak-ng’s, and the provider speaks the audio', async () => {
  const page = await openTts(withKey, 'pt-BR');
  await page.getByTestId('tts-name').fill('Boas-vindas IA');
  await page.getByTestId('tts-text').fill('Olá! Obrigado por ligar.');
  await page.getByTestId('tts-voice').click();
  await page.getByText('Vozes de IA', { exact: true }).waitFor();
  await page.keyboard.press('Escape');
  fake.script('/v1/audio/speech', { body: silentWav(800) });
  await chooseOption(page, 'tts-voice', 'Nova');
  await page.getByTestId('tts-submit').click();
  await expect.poll(() => page.getByTestId('tts-ready').count(), { timeout: 30_000 }).toBe(1);
  await page.getByTestId('tts-close').click();
  await expect.poll(() => rowWith(page, 'Boas-vindas IA').getByTestId('audio-status').textContent()).toBe('Pronto');

  const token = await harness.server.login(withKey.username, withKey.password);
  const [stored] = (await harness.server.call({ method: 'GET', url: '/audios', token })).json<Audio[]>();
  expect(stored).toMatchObject({ voice: 'openai-nova', status: 'ready' });
  expect(fake.seen('/v1/audio/speech')[0]!.json).toMatchObject({ voice: 'nova', input: 'Olá! Obrigado por ligar.' });
});

test('a tenant without a key is offered espeak-ng’s voices only', async () => {
  const page = await openTts(withoutKey, 'en-US');
  await page.getByTestId('tts-voice').click();
  await page.getByText('Female voices', { exact: true }).waitFor();
  expect(await page.getByText('AI voices', { exact: true }).count()).toBe(0);
  expect(await page.getByRole('option', { name: 'Nova', exact: true }).count()).toBe(0);
});

test('the second AI provider: its key is offered while the setting is on, and hidden but kept while it is off', async () => {
  const integrations = async () => (await harness.server.call({ method: 'GET', url: `/tenants/${withKeyTenant}/integrations`, token: admin })).json<Record<string, string>>();
  const openModal = async () => {
    const { page } = await harness.newPage();
    await harness.signIn(page);
    await page.goto('/tenants');
    await page.getByTestId('table-search').fill('ai-voices');
    await expect.poll(() => page.getByTestId('table-row').count()).toBe(1);
    await page.getByTestId('tenant-integrations').click();
    await page.getByTestId('switch-ai').waitFor();
    return page;
  };

  await setting(true);
  const on = await openModal();
  await on.getByTestId('switch-second-ai').click();
  await on.getByTestId('second-ai-key').fill('sp-second-key-4321');
  await on.getByTestId('integrations-save').click();
  await expect.poll(async () => (await integrations()).sippulse_ai_key).toBe('••••4321');

  await setting(false);
  const off = await openModal();
  expect(await off.getByTestId('switch-second-ai').count()).toBe(0);
  expect(await off.getByText('sp-second-key-4321').count()).toBe(0);
  // Saved while off (the OpenAI key replaced), the hidden key is neither sent nor lost.
  await off.getByTestId('openai-key').fill('sk-e2e-voices-2');
  await off.getByTestId('integrations-save').click();
  await expect.poll(async () => (await integrations()).openai_key).toBe('••••es-2');
  expect(await integrations()).not.toHaveProperty('sippulse_ai_key');
  await setting(true);
  expect((await integrations()).sippulse_ai_key).toBe('••••4321');
  await setting(false);
});

test('the chatbot block offers the second AI provider only while its setting is on, and warns on a block that names it while it is off', async () => {
  const token = await harness.server.login(withKey.username, withKey.password);
  const node = (id: string, type: string, x: number, data: Record<string, unknown> = {}) => ({ id, type, position: { x, y: 0 }, data });
  const plan = await createPlan(harness.server, token, 'Chatbots', {
    nodes: [node('start', 'start', 0), node('second', 'chatbot', 300, { provider: 'sippulse' }), node('first', 'chatbot', 600, { provider: 'openai' })],
    edges: [
      { id: 'e1', source: 'start', source_exit: 'next', target: 'second' },
      { id: 'e2', source: 'second', source_exit: 'done', target: 'first' },
    ],
  });
  const openEditor = async () => {
    const { page } = await harness.newPage();
    await harness.signIn(page, withKey.username, withKey.password);
    await page.goto(`/visual-plan/${plan.id}`);
    await page.getByTestId('plan-canvas').locator('.react-flow__node').first().waitFor();
    return page;
  };
  const select = async (page: Awaited<ReturnType<typeof openEditor>>, id: string) => {
    // The view may have followed another block; the canvas draws only the blocks in view, so the
    // person fits the plan first, as they would to find one.
    await page.getByTestId('editor-fit').click();
    // Clicked while the fit still moves it, the block is missed on a busy machine.
    const block = page.locator(`[data-testid="plan-node"][data-node-id="${id}"]`);
    await untilStill(block);
    await block.click();
    await expect.poll(() => page.getByTestId('block-panel').getAttribute('data-node-id')).toBe(id);
  };
  const providersOffered = async (page: Awaited<ReturnType<typeof openEditor>>) => {
    await page.getByTestId('block-panel').getByTestId('field-provider').click();
    const options = page.getByRole('option');
    await options.first().waitFor();
    const names = await options.allTextContents();
    await page.keyboard.press('Escape');
    return names;
  };

  await setting(false);
  const off = await openEditor();
  // The plan's issues name the block; the list takes the user to it, whose form keeps its choice and warns.
  await off.getByTestId('editor-issues').click();
  await off.getByTestId('issue-warning').filter({ hasText: 'Choice turned off in the system settings' }).click();
  await expect.poll(() => off.getByTestId('block-panel').getAttribute('data-node-id')).toBe('second');
  expect(await off.getByTestId('block-panel').getByTestId('field-provider').inputValue()).toBe('SipPulse AI');
  expect(await off.getByTestId('warning-provider').textContent()).toBe(
    'The choice SipPulse AI is turned off in the system settings: this block will fail when it runs and take its error exit.',
  );
  await select(off, 'first');
  expect(await off.getByTestId('warning-provider').count()).toBe(0);
  expect(await providersOffered(off)).toEqual(['OpenAI']);

  await setting(true);
  try {
    const on = await openEditor();
    await select(on, 'first');
    expect(await providersOffered(on)).toEqual(['OpenAI', 'SipPulse AI']);
    await select(on, 'second');
    expect(await on.getByTestId('block-panel').getByTestId('field-provider').inputValue()).toBe('SipPulse AI');
    expect(await on.getByTestId('warning-provider').count()).toBe(0);
    await openIssues(on);
    expect(await on.getByTestId('issue-warning').filter({ hasText: 'Choice turned off in the system settings' }).count()).toBe(0);
  } finally {
    await setting(false);
  }
});

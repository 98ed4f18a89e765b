import type { Audio } from '@voxplan/contracts';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { type FakeOpenAi, silentWav, startFakeOpenAi } from '../../server/test/fake-openai.ts';
import { createTenantMember } from '../../server/test/harness.ts';
import { chooseOption, type ConsoleHarness, rowWith, startConsole } from './harness.ts';

/** The audio screen's AI voices (issue 18): offered to a tenant with an AI key, spoken by the provider. */

let fake: FakeOpenAi;
let harness: ConsoleHarness;
let withKey: { username: string; password: string };
let withoutKey: { username: string; password: string };

beforeAll(async () => {
  fake = await startFakeOpenAi();
  harness = await startConsole({ OPENAI_BASE_URL: `${fake.url}/v1` });
  const admin = await harness.server.login();
  const member = await createTenantMember(harness.server, admin, 'ai-voices');
  withKey = member;
  withoutKey = await createTenantMember(harness.server, admin, 'no-ai-voices');
  const saved = await harness.server.call({ method: 'PATCH', url: `/tenants/${member.tenantId}/integrations`, token: admin, payload: { openai_key: 'sk-e2e-voices' } });
  expect(saved.statusCode, saved.body).toBe(200);
});

afterAll(async () => {
  await harness?.close();
  await fake?.close();
});

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

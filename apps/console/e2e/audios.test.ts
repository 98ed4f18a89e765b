import type { Audio } from '@voxplan/contracts';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { makeAudio, probe } from '../../server/test/audio-fixtures.ts';
import { createTenantMember } from '../../server/test/harness.ts';
import { accessibilityViolations, chooseOption, type ConsoleHarness, rowWith, startConsole } from './harness.ts';

let harness: ConsoleHarness;
let admin: string;
let member: { username: string; password: string };

/** A tenant and a member with role user in it, seeded through the API with the admin's token. */
beforeAll(async () => {
  harness = await startConsole();
  admin = await harness.server.login();
  member = await createTenantMember(harness.server, admin, 'audiotenant');
});
afterAll(() => harness.close());

const storedAudios = async (): Promise<Audio[]> => {
  const token = await harness.server.login(member.username, member.password);
  return (await harness.server.call({ method: 'GET', url: '/audios', token })).json<Audio[]>();
};

async function setMaxSize(value: string): Promise<void> {
  const settings = await harness.server.call({ method: 'GET', url: `/configurations?filter=${encodeURIComponent(JSON.stringify({ where: { name: 'audio_max_size_mb' } }))}`, token: admin });
  const [setting] = settings.json<{ id: number }[]>();
  const patched = await harness.server.call({ method: 'PATCH', url: `/configurations/${setting!.id}`, token: admin, payload: { value } });
  expect(patched.statusCode, patched.body).toBe(200);
}

async function openAudios(locale = 'en-US'): Promise<Page> {
  const { page } = await harness.newPage({ locale });
  await harness.signIn(page, member.username, member.password);
  await page.goto('/audios');
  await page.getByTestId('audio-upload').waitFor();
  return page;
}

const dialog = (page: Page) => page.getByRole('dialog');
const chooseFile = (page: Page, name: string, buffer: Buffer, mimeType = 'audio/wav') =>
  dialog(page).locator('input[type=file]').setInputFiles({ name, mimeType, buffer });

describe('audios screen', () => {
  test('upload a WAV: it is listed with its duration, and the row\'s player plays it', async () => {
    const page = await openAudios();
    await page.getByTestId('audio-upload').click();
    await chooseFile(page, 'Welcome message.wav', makeAudio('wav', 2));
    // The name comes from the file when none was typed.
    await expect.poll(() => page.getByTestId('audio-upload-name').inputValue()).toBe('Welcome message');
    await page.getByTestId('audio-upload-submit').click();
    await expect.poll(() => page.getByText('Audio uploaded.').count()).toBe(1);
    await expect.poll(() => dialog(page).count()).toBe(0);

    const row = rowWith(page, 'Welcome message');
    await expect.poll(() => row.getByTestId('audio-duration').textContent()).toBe('0:02');
    expect(await row.getByText('Upload', { exact: true }).count()).toBe(1);
    expect(await row.getByTestId('audio-status').textContent()).toBe('Ready');
    await row.getByTestId('audio-play').click();
    const player = row.getByTestId('audio-player');
    await player.waitFor();
    // Chromium decoded the sound it was given: its length is the file's.
    await expect.poll(() => player.evaluate((element: HTMLAudioElement) => element.duration)).toBeCloseTo(2, 1);
    expect(await player.evaluate((element: HTMLAudioElement) => element.src)).toMatch(/^blob:/);
    expect(await storedAudios()).toEqual([expect.objectContaining({ name: 'Welcome message', format: 'wav', source: 'upload', status: 'ready' })]);
  });

  test('upload: each field is refused on its own, in English and in Portuguese', async () => {
    const text = Buffer.from('Not a sound at all, only some words.\n'.repeat(40));
    for (const [locale, required, notAudio] of [
      ['en-US', 'Required', 'The file is not a WAV, MP3 or OGG audio.'],
      ['pt-BR', 'Obrigatório', 'O arquivo não é um áudio WAV, MP3 ou OGG.'],
    ] as const) {
      const page = await openAudios(locale);
      await page.getByTestId('audio-upload').click();
      await page.getByTestId('audio-upload-submit').click();
      await expect.poll(() => dialog(page).getByText(required).count()).toBe(2);
      expect(await page.getByTestId('audio-upload-name').getAttribute('aria-invalid')).toBe('true');

      // A text file named .wav passes the browser and is refused by the server on the file field.
      await page.getByTestId('audio-upload-name').fill('Fake');
      await chooseFile(page, 'fake.wav', text);
      await page.getByTestId('audio-upload-submit').click();
      await expect.poll(() => dialog(page).getByText(notAudio).count()).toBe(1);
      expect(await dialog(page).count()).toBe(1);
    }
    expect(await storedAudios()).toHaveLength(1);
  });

  test('the size limit of the general settings: checked before sending, and by the server with the same message', async () => {
    const big = makeAudio('wav', 2); // about 350 KB
    try {
      await setMaxSize('0.1');
      for (const [locale, message] of [
        ['en-US', 'File bigger than 0.1 Mbs'],
        ['pt-BR', 'Arquivo maior que 0.1 Mbs'],
      ] as const) {
        const page = await openAudios(locale);
        const uploads: string[] = [];
        page.on('request', (request) => {
          if (request.url().endsWith('/audios/upload')) uploads.push(request.method());
        });
        await page.getByTestId('audio-upload').click();
        await page.getByTestId('audio-upload-name').fill('Too big');
        await chooseFile(page, 'big.wav', big);
        await page.getByTestId('audio-upload-submit').click();
        await expect.poll(() => dialog(page).getByText(message).count()).toBe(1);
        expect(uploads).toEqual([]);
      }

      // The limit falls after the form opened: the browser lets the file go, the server refuses it.
      await setMaxSize('10');
      const page = await openAudios();
      await page.getByTestId('audio-upload').click();
      await page.getByTestId('audio-upload-name').fill('Too big');
      await chooseFile(page, 'big.wav', big);
      await expect.poll(() => dialog(page).getByText('WAV, MP3 or OGG, up to 10 MB').count()).toBe(1);
      await setMaxSize('0.1');
      await page.getByTestId('audio-upload-submit').click();
      await expect.poll(() => dialog(page).getByText('File bigger than 0.1 Mbs').count()).toBe(1);
    } finally {
      await setMaxSize('10');
    }
    expect((await storedAudios()).map((audio) => audio.name)).not.toContain('Too big');
  });

  test('text to speech: the progress is shown until the audio is ready, then it plays in its row', async () => {
    const page = await openAudios('pt-BR');
    await page.getByTestId('audio-tts').click();
    await page.getByTestId('tts-name').fill('Menu principal');
    const text = 'Obrigado por ligar. Para falar com o suporte, digite um. Para o financeiro, digite dois. '.repeat(12);
    await page.getByTestId('tts-text').fill(text);
    // The interface language gives the default language of the speech.
    expect(await page.getByTestId('tts-language').inputValue()).toBe('Portuguese (Brazil) · pt-br');
    await chooseOption(page, 'tts-voice', 'female3');
    await page.getByTestId('tts-submit').click();
    await page.getByTestId('tts-progress').waitFor();
    await expect.poll(() => page.getByTestId('tts-ready').count(), { timeout: 60_000 }).toBe(1);
    expect(await page.getByTestId('tts-ready').textContent()).toBe('O áudio “Menu principal” está pronto.');
    await page.getByTestId('tts-close').click();

    const row = rowWith(page, 'Menu principal');
    await expect.poll(() => row.getByTestId('audio-status').textContent()).toBe('Pronto');
    expect(await row.getByText('Texto para fala', { exact: true }).count()).toBe(1);
    const [stored] = (await storedAudios()).filter((audio) => audio.name === 'Menu principal');
    expect(stored).toMatchObject({ source: 'tts', language: 'pt-br', voice: 'f3', status: 'ready', progress: 100 });
    expect(await row.getByTestId('audio-duration').textContent()).toMatch(/^\d+:\d\d$/);
    expect(await row.getByTestId('audio-duration').textContent()).not.toBe('0:00');

    await row.getByTestId('audio-play').click();
    const player = row.getByTestId('audio-player');
    await player.waitFor();
    await expect.poll(() => player.evaluate((element: HTMLAudioElement) => element.duration)).toBeCloseTo(stored!.duration_ms! / 1000, 1);
    // What the server stored decodes, and lasts as long as so many words need.
    const token = await harness.server.login(member.username, member.password);
    const file = await harness.server.call({ method: 'GET', url: `/audios/${stored!.id}/file`, token });
    const words = text.trim().split(/\s+/).length;
    expect(probe(file.rawPayload).durationMs).toBeGreaterThan(words * 200);
  });

  test('text to speech: each field is refused on its own, in English and in Portuguese', async () => {
    for (const [locale, required] of [
      ['en-US', 'Required'],
      ['pt-BR', 'Obrigatório'],
    ] as const) {
      const page = await openAudios(locale);
      await page.getByTestId('audio-tts').click();
      await page.getByTestId('tts-submit').click();
      await expect.poll(() => dialog(page).getByText(required).count()).toBe(2);
      expect(await page.getByTestId('tts-name').getAttribute('aria-invalid')).toBe('true');
      expect(await page.getByTestId('tts-text').getAttribute('aria-invalid')).toBe('true');
      await page.getByTestId('tts-name').fill('Named');
      await page.getByTestId('tts-text').fill('   ');
      await page.getByTestId('tts-submit').click();
      await expect.poll(() => dialog(page).getByText(required).count()).toBe(1);
      expect(await page.getByTestId('tts-name').getAttribute('aria-invalid')).toBe(null);
    }
  });

  test('with rows, a player open and a modal: no serious accessibility violation, light or dark', async () => {
    for (const colorScheme of ['light', 'dark'] as const) {
      const { page } = await harness.newPage({ colorScheme });
      await harness.signIn(page, member.username, member.password);
      await page.goto('/audios');
      await rowWith(page, 'Welcome message').getByTestId('audio-play').click();
      await rowWith(page, 'Welcome message').getByTestId('audio-player').waitFor();
      expect(await accessibilityViolations(page)).toEqual([]);
      await page.getByTestId('audio-tts').click();
      await page.getByTestId('tts-text').waitFor();
      expect(await accessibilityViolations(page)).toEqual([]);
    }
  });

  test('rename an audio, then remove it with the confirm dialog', async () => {
    const page = await openAudios();
    const row = rowWith(page, 'Welcome message');
    await row.getByTestId('audio-edit').click();
    expect(await page.getByTestId('audio-rename-name').inputValue()).toBe('Welcome message');
    await page.getByTestId('audio-rename-name').fill('Greeting');
    await page.getByTestId('audio-rename-save').click();
    await expect.poll(() => page.getByText('Audio renamed.').count()).toBe(1);
    await expect.poll(() => rowWith(page, 'Greeting').count()).toBe(1);

    await rowWith(page, 'Greeting').getByTestId('audio-remove').click();
    await page.getByTestId('confirm-remove').click();
    await expect.poll(() => page.getByText('Record removed.').count()).toBe(1);
    await expect.poll(() => rowWith(page, 'Greeting').count()).toBe(0);
    expect((await storedAudios()).map((audio) => audio.name)).not.toContain('Greeting');
  });
});

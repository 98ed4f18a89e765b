import { expect, test } from 'vitest';
import { browserVoiceFor } from './prompt-voice.ts';

const voices = [{ lang: 'en-US' }, { lang: 'pt_PT' }, { lang: 'pt-BR' }, { lang: 'es-ES' }];

test('a prompt gets a browser voice of its very tag, else of its language, else none', () => {
  expect(browserVoiceFor(voices, 'pt-BR')).toEqual({ lang: 'pt-BR' });
  expect(browserVoiceFor(voices, 'pt-pt')).toEqual({ lang: 'pt_PT' });
  expect(browserVoiceFor(voices, 'es-MX')).toEqual({ lang: 'es-ES' });
  expect(browserVoiceFor(voices, 'de-DE')).toBeUndefined();
  expect(browserVoiceFor([], 'en-US')).toBeUndefined();
});

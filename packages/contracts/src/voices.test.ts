import { execFileSync } from 'node:child_process';
import { describe, expect, test } from 'vitest';
import { espeakLanguageFor, espeakVoices, planLanguages, twilioVoiceFor, twilioVoiceSpeaks } from './voices.ts';

/** The languages and variants espeak-ng says it has (`--voices`, `--voices=variant`): the table's Language and File columns. */
function espeak(args: string[]): string[] {
  return execFileSync('espeak-ng', args, { encoding: 'utf8' })
    .split('\n')
    .slice(1)
    .map((line) => line.trim().split(/\s+/))
    .filter((columns) => columns.length >= 5)
    .map((columns) => (columns[1] === 'variant' ? columns[4]!.replace('!v/', '') : columns[1]!));
}

describe('the voices list', () => {
  test('every language names a voice espeak-ng has, and every variant is one of its variants', () => {
    const languages = new Set(espeak(['--voices']));
    for (const language of planLanguages) expect(languages.has(language.espeak), `${language.tag} → ${language.espeak}`).toBe(true);
    const variants = new Set(espeak(['--voices=variant']));
    for (const voice of espeakVoices) expect(variants.has(voice.id), voice.id).toBe(true);
  });

  test('tags are unique, and a voice speaks the languages it is listed for only', () => {
    expect(new Set(planLanguages.map((language) => language.tag)).size).toBe(planLanguages.length);
    expect(twilioVoiceSpeaks('Polly.Camila', 'pt-BR')).toBe(true);
    expect(twilioVoiceSpeaks('Polly.Camila', 'pt-br')).toBe(true);
    expect(twilioVoiceSpeaks('Polly.Camila', 'en-US')).toBe(false);
    expect(twilioVoiceSpeaks('Polly.Joanna', '')).toBe(false);
    expect(twilioVoiceFor('pt-BR', 'Polly.Joanna')).toBe('Polly.Camila');
    expect(twilioVoiceFor('ja-JP')).toBeUndefined();
    expect(espeakLanguageFor('es-MX')).toBe('es-419');
    expect(espeakLanguageFor('de-AT')).toBe('de-at');
  });
});

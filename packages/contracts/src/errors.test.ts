import fs from 'node:fs';
import { describe, expect, test } from 'vitest';
import { errorCodes, errorMessage, errorMessages, localeFromAcceptLanguage } from './errors.ts';

describe('error catalogue', () => {
  test('every code has an English and a Portuguese text, and no text is left untranslated', () => {
    for (const locale of ['en', 'pt'] as const) {
      expect(Object.keys(errorMessages[locale]).sort()).toEqual([...errorCodes].sort());
    }
    const identical = errorCodes.filter((code) => errorMessages.en[code] === errorMessages.pt[code]);
    expect(identical).toEqual([]);
  });

  test('docs/errors.md lists every code', () => {
    const doc = fs.readFileSync(new URL('../../../docs/errors.md', import.meta.url), 'utf8');
    expect(errorCodes.filter((code) => !doc.includes(`\`${code}\``))).toEqual([]);
  });

  test('the language follows Accept-Language, with English for anything else', () => {
    expect(localeFromAcceptLanguage('pt-BR,pt;q=0.9,en;q=0.8')).toBe('pt');
    expect(localeFromAcceptLanguage('en-US,en;q=0.9')).toBe('en');
    expect(localeFromAcceptLanguage('fr-FR,pt;q=0.5,en;q=0.9')).toBe('en');
    expect(localeFromAcceptLanguage('fr-FR,pt;q=0.9,en;q=0.5')).toBe('pt');
    expect(localeFromAcceptLanguage('de')).toBe('en');
    expect(localeFromAcceptLanguage(undefined)).toBe('en');
    expect(errorMessage('invalid_credentials', 'pt')).toBe('Usuário ou senha inválidos.');
  });

  test('a text that names a value shows it, in both languages', () => {
    expect(errorMessage('file_too_large', 'en', { maxSize: 10 })).toBe('File bigger than 10 Mbs');
    expect(errorMessage('file_too_large', 'pt', { maxSize: 2.5 })).toBe('Arquivo maior que 2.5 Mbs');
    // Without the value the placeholder stays, as i18next leaves it.
    expect(errorMessage('file_too_large', 'en')).toBe('File bigger than {{maxSize}} Mbs');
  });
});

import { ESLint } from 'eslint';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { compareCatalogues, duplicateKeys } from './check-i18n.ts';

describe('npm run check guards the translations', () => {
  test('a key missing on either side, or an empty text, is reported', () => {
    expect(compareCatalogues({ a: { b: 'B', c: 'C' } }, { a: { b: 'Bê', c: 'Cê' } })).toEqual([]);
    expect(compareCatalogues({ a: { b: 'B', c: 'C' } }, { a: { b: 'Bê' }, d: ' ' })).toEqual([
      'missing in pt: a.c',
      'missing in en: d',
      'empty text: d',
    ]);
  });

  test('a key given twice in one object is reported: JSON.parse would keep only the last', () => {
    expect(duplicateKeys('{"a": {"b": "x"}, "c": "y, \\"a\\": z", "a": {"d": "z"}}')).toEqual(['a']);
    expect(duplicateKeys('{"v": {"custom": {"k": "1", "k": "2"}}, "w": {"k": "3"}}')).toEqual(['v.custom.k']);
    expect(duplicateKeys('{"a": {"b": "x"}, "c": {"b": "y"}}')).toEqual([]);
  });

  test('text written straight into JSX fails the lint, text through t() passes', async () => {
    const eslint = new ESLint({ cwd: path.resolve(import.meta.dirname, '..') });
    const file = 'apps/console/src/features/example.tsx';
    const [literal] = await eslint.lintText('export function A() {\n  return <Text>Hello there</Text>;\n}\n', { filePath: file });
    expect(literal!.messages.map((message) => message.ruleId)).toContain('i18next/no-literal-string');
    const [translated] = await eslint.lintText("export const A = ({ t }: { t: (k: string) => string }) => <Text>{t('greeting')}</Text>;\n", {
      filePath: file,
    });
    expect(translated!.messages.filter((message) => message.ruleId === 'i18next/no-literal-string')).toEqual([]);
  });
});

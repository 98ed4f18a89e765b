import { describe, expect, it } from 'vitest';
import { wordsFor } from './i18n.ts';
import { refusalOf, sizeOf } from './files.ts';

const file = (name: string, type: string, size: number) => new File([new Uint8Array(size)], name, { type });

describe('what the widget says of a file before it uploads it', () => {
  it('takes what the web chat takes, and names why it refuses the rest, in the visitor’s language', () => {
    const { words: en } = wordsFor('en');
    const { words: pt } = wordsFor('pt-BR');
    expect(refusalOf(file('receipt.png', 'image/png', 1000), en, 'en')).toBeNull();
    expect(refusalOf(file('setup.exe', 'application/x-msdownload', 10), en, 'en')).toBe('This chat does not take application/x-msdownload files.');
    // A type the browser does not know is named by the file's extension.
    expect(refusalOf(file('design.sketch', '', 10), pt, 'pt')).toBe('Este chat não aceita arquivos .sketch.');
    expect(refusalOf(file('film.mp4', 'video/mp4', 10 * 1024 * 1024 + 1), pt, 'pt')).toBe('Este arquivo é grande demais: este chat aceita até 10 MB deste tipo.');
  });

  it('gives sizes in bytes, KB or MB, with the language’s decimal mark', () => {
    expect(sizeOf(48, 'en')).toBe('48 B');
    expect(sizeOf(1536, 'en')).toBe('1.5 KB');
    expect(sizeOf(1536, 'pt')).toBe('1,5 KB');
    expect(sizeOf(3 * 1024 * 1024, 'pt')).toBe('3 MB');
  });
});

import { describe, expect, test } from 'vitest';
import { CsvError, decodeCsvText, parseCsv, sniffDelimiter } from './csv.ts';

describe('csv: RFC 4180 reading', () => {
  test('quoted cells hold separators, doubled quotes and line breaks; records keep their first line', () => {
    const text = 'number,reason\r\n"+55 11 91234-5678","asked, twice"\r\n\r\n011 3333-4444,"said ""stop""\nby phone"\r\nlast,\r\n';
    expect(parseCsv(text)).toEqual([
      { line: 1, cells: ['number', 'reason'] },
      { line: 2, cells: ['+55 11 91234-5678', 'asked, twice'] },
      { line: 4, cells: ['011 3333-4444', 'said "stop"\nby phone'] },
      { line: 6, cells: ['last', ''] },
    ]);
  });

  test('a plain list, bare LF, a byte-order mark and no final line end', () => {
    expect(parseCsv('\uFEFF(11) 91234-5678\n\n  +1 415 555 0123')).toEqual([
      { line: 1, cells: ['(11) 91234-5678'] },
      { line: 3, cells: ['  +1 415 555 0123'] },
    ]);
  });

  test('the separator is the first line’s most frequent of , ; and tab', () => {
    expect(sniffDelimiter('numero;motivo\n1,2;3')).toBe(';');
    expect(sniffDelimiter('a\tb\tc')).toBe('\t');
    expect(sniffDelimiter('"a;b",c\n')).toBe(',');
    expect(sniffDelimiter('(11) 91234-5678')).toBe(',');
    expect(parseCsv('numero;motivo\n11 91234-5678;pediu, por e-mail\n')).toEqual([
      { line: 1, cells: ['numero', 'motivo'] },
      { line: 2, cells: ['11 91234-5678', 'pediu, por e-mail'] },
    ]);
  });

  test('a quote left open or inside an unquoted cell is refused with its line', () => {
    expect(() => parseCsv('a\nb\n"c,d\ne')).toThrow(new CsvError('unclosed_quote', 3));
    expect(() => parseCsv('a\nab"c,d')).toThrow(new CsvError('stray_quote', 2));
    expect(() => parseCsv('"a"b,c')).toThrow(new CsvError('stray_quote', 1));
  });

  test('bytes that are not UTF-8 text are refused', () => {
    expect(decodeCsvText(new TextEncoder().encode('número\n'))).toBe('número\n');
    expect(() => decodeCsvText(Uint8Array.from([0x50, 0x4b, 0x03, 0x04, 0x00, 0x00]))).toThrow(CsvError);
    expect(() => decodeCsvText(Uint8Array.from([0xff, 0xfe, 0x41]))).toThrow(CsvError);
  });
});
